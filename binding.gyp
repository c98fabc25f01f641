{
  "targets": [
    {
      "target_name": "duckdb_vortex",
      "sources": ["<!@(node scripts/build-config.mjs sources)"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "libraries": ["<!(node scripts/build-config.mjs libduckdb)"],
      "defines": [
        "NAPI_VERSION=8",
        "NAPI_CPP_EXCEPTIONS",
        "NDEBUG",
        "VORTEX_DUCKDB_VERSION=\"<!(node scripts/build-config.mjs version)\"",
        "VORTEX_DUCKDB_VERSION_NUMBER=<!(node scripts/build-config.mjs version-number)"
      ],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": [
        "-std=c++17",
        "-fexceptions",
        "-frtti",
        "-O3",
        "-Wall",
        "-Wextra",
        "-Wno-unused-parameter",
        "-fvisibility=hidden",
        "<!@(node scripts/build-config.mjs isystem)"
      ]
    }
  ]
}
