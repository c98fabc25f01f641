// Every encoding's own file: the codecs that the rows of VTX_ENCODINGS (encoding.hpp) name, for
// the files that dispatch to them (fixed_width_impl.hpp for fixed-width values, encoding.cpp for
// strings).
#pragma once
#include "alp.hpp"
#include "constant.hpp"
#include "dictionary.hpp"
#include "frame.hpp"
#include "plain.hpp"
#include "runs.hpp"
