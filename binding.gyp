{
  "target_defaults": {
    "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
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
      "-fvisibility=hidden"
    ]
  },
  "targets": [
    {
      "target_name": "vortex_core",
      "type": "static_library",
      "sources": ["<!@(node scripts/build-config.mjs core-sources)"],
      "cflags": ["-fPIC"],
      "cflags_cc": ["<!@(node scripts/build-config.mjs core-isystem)"]
    },
    {
      "target_name": "duckdb_vortex",
      "dependencies": ["vortex_core"],
      "sources": ["<!@(node scripts/build-config.mjs glue-units)"],
      "libraries": ["<!(node scripts/build-config.mjs libduckdb)"],
      "cflags_cc": ["<!@(node scripts/build-config.mjs isystem)", "<!@(node scripts/build-config.mjs pch-include)"],
      "actions": [
        {
          "action_name": "precompile_duckdb_headers",
          "inputs": ["native/duckdb/duckdb_pch.hpp"],
          "outputs": ["<(module_root_dir)/build/pch/duckdb_pch.hpp.gch"],
          "action": ["node", "scripts/build-pch.mjs", "<(module_root_dir)/build", "<(module_root_dir)/build/pch/duckdb_pch.hpp.gch"],
          "message": "precompiling DuckDB's headers for the glue"
        }
      ]
    }
  ]
}
