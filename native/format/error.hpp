#pragma once
#include <stdexcept>
#include <string>

namespace vtx {

//! A file is not valid .vtx: truncated, corrupted, or written by something else. The message
//! says what is wrong; the DuckDB layer prefixes the file name.
class FormatError : public std::runtime_error {
public:
	explicit FormatError(const std::string &msg) : std::runtime_error(msg) {
	}
};

} // namespace vtx
