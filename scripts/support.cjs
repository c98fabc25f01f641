// Which @duckdb/node-api versions duckdb-vortex has builds for, and the one error for any other.
// Plain CommonJS so that both the install script (scripts/install.mjs) and the runtime loader
// (src/native.ts, compiled to dist/) use the very same text.
'use strict';
const { lines } = require('./duckdb-lines.json');

/** "X.Y.Z-r.N", "vX.Y.Z", "X.Y.Z-dev12" -> "X.Y.Z" */
function duckdbOf(version) {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(String(version));
  if (!m) throw new Error(`duckdb-vortex: cannot read a DuckDB version from "${version}"`);
  return `${m[1]}.${m[2]}.${m[3]}`;
}

/** The supported line for a DuckDB or @duckdb/node-api version, or undefined. */
function lineOf(version) {
  const listed = lines.find((l) => l.nodeApi === version || Object.values(l.platforms || {}).some((p) => p && p.nodeApi === version));
  if (listed) return listed;
  const duckdb = duckdbOf(version);
  return lines.find((l) => l.duckdb === duckdb);
}

/**
 * The @duckdb/node-api of a line on a platform: some revisions published no bindings for some
 * platforms (duckdb-lines.json `platforms`: another revision, or null where none did).
 */
function nodeApiOf(line, platform = `${process.platform}-${process.arch}`) {
  if (line.platforms && platform in line.platforms) return line.platforms[platform]?.nodeApi ?? null;
  return line.nodeApi;
}

/** The @duckdb/node-api version to pin instead of `version`: the same minor line when there is one, else the newest. */
function suggestedPin(version, platform) {
  const [major, minor] = duckdbOf(version).split('.');
  const usable = lines.filter((l) => nodeApiOf(l, platform));
  const same = usable.filter((l) => l.duckdb.startsWith(`${major}.${minor}.`));
  const from = same.length ? same : usable;
  return from.length ? nodeApiOf(from[from.length - 1], platform) : lines[lines.length - 1].nodeApi;
}

/** "DuckDB A to B and C to D": the releases, by minor line. */
function releasesText() {
  const byMinor = new Map();
  for (const l of lines) {
    const minor = l.duckdb.split('.').slice(0, 2).join('.');
    if (!byMinor.has(minor)) byMinor.set(minor, []);
    byMinor.get(minor).push(l.duckdb);
  }
  const ranges = [...byMinor.values()].map((v) => (v.length > 1 ? `${v[0]} to ${v[v.length - 1]}` : v[0]));
  return `DuckDB ${ranges.length > 1 ? `${ranges.slice(0, -1).join(', ')} and ${ranges[ranges.length - 1]}` : ranges[0]}`;
}

/** Every supported release with the @duckdb/node-api to pin for it. */
const supportedText = () => `${releasesText()}, each with its @duckdb/node-api: ${lines.map((l) => `${l.nodeApi} (v${l.duckdb})`).join(', ')}`;

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
    `DuckDB release it was compiled for. Pin a supported version in your service, e.g. the nearest: ` +
    `npm install --save-exact @duckdb/node-api@${suggestedPin(v)} ` +
    `(to build for v${v} yourself instead, from DuckDB's source at tag v${v}: ` +
    `DUCKDB_VORTEX_HEADERS=<DuckDB's source at tag v${v}> npm rebuild duckdb-vortex; see "DuckDB versions" in the README).`
  );
}

module.exports = { lines, duckdbOf, lineOf, nodeApiOf, suggestedPin, unsupportedMessage, supportedText, releasesText };
