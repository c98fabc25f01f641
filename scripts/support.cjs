// Which @duckdb/node-api versions duckdb-vortex has builds for, and the one error for any other.
// Plain CommonJS so that both the install script (scripts/install.mjs) and the runtime loader
// (src/native.ts, compiled to dist/) use the very same text.
'use strict';
const { lines } = require('./duckdb-lines.json');

/** "1.5.6-r.1", "v1.5.6", "1.5.6-dev12" -> "1.5.6" */
function duckdbOf(version) {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(String(version));
  if (!m) throw new Error(`duckdb-vortex: cannot read a DuckDB version from "${version}"`);
  return `${m[1]}.${m[2]}.${m[3]}`;
}

/** The supported line for a DuckDB or @duckdb/node-api version, or undefined. */
function lineOf(version) {
  const duckdb = duckdbOf(version);
  return lines.find((l) => l.duckdb === duckdb);
}

/** The @duckdb/node-api of a line on a platform (some revisions published no bindings for some platforms). */
function nodeApiOf(line, platform = `${process.platform}-${process.arch}`) {
  return line.platforms?.[platform]?.nodeApi ?? line.nodeApi;
}

/** The @duckdb/node-api version to pin instead of `version`: the same minor line when there is one, else the newest. */
function suggestedPin(version, platform) {
  const [major, minor] = duckdbOf(version).split('.');
  const same = lines.filter((l) => l.duckdb.startsWith(`${major}.${minor}.`));
  return nodeApiOf((same.length ? same : lines)[(same.length ? same : lines).length - 1], platform);
}

const supportedText = () => lines.map((l) => `@duckdb/node-api ${l.nodeApi} (DuckDB v${l.duckdb})`).join(', ');

/**
 * The error for a @duckdb/node-api whose DuckDB has no build. `nodeApi` is the package version
 * when known (at install), else null (at registerVortex, which knows the DuckDB it runs in).
 */
function unsupportedMessage({ duckdb, nodeApi = null }) {
  const v = duckdbOf(duckdb);
  const installed = nodeApi ? `@duckdb/node-api ${nodeApi} (DuckDB v${v})` : `the @duckdb/node-api in use (DuckDB v${v})`;
  return (
    `duckdb-vortex does not support ${installed}. Supported: ${supportedText()}. ` +
    `Its native addon uses DuckDB's C++ API, which changes between releases, so each build runs only inside the exact ` +
    `DuckDB release it was compiled for. Pin a supported version in your service: ` +
    `npm install @duckdb/node-api@${suggestedPin(v)} ` +
    `(to build for v${v} yourself instead, from DuckDB's source at tag v${v}: ` +
    `DUCKDB_VORTEX_HEADERS=<DuckDB's source at tag v${v}> npm rebuild duckdb-vortex; see "DuckDB versions" in the README).`
  );
}

module.exports = { lines, duckdbOf, lineOf, nodeApiOf, suggestedPin, unsupportedMessage, supportedText };
