// Types of bench/clickbench-table.mjs for test/clickbench.test.ts (the tests are type-checked in strict mode).
import type { DuckDBConnection, DuckDBResultReader } from '@duckdb/node-api';

export interface Answer { types: string[]; rows: (string | null)[][] }
export interface CheckForm { check: string; full: string; keys: number; limit: number | null; offset: number }
export type Member = (rows: (string | null)[][]) => Promise<(string | null)[][]>;

export const HITS_CONSTANTS: { counter: number; user: bigint; urlHash: bigint; refererHash: bigint };
export function hitsStatements(rows: number): string[];
export function createHits(conn: DuckDBConnection, clickbenchDir: string, rows: number): Promise<void>;
export function readQueries(clickbenchDir: string): { name: string; sql: string }[];
export function checkForm(sql: string): CheckForm;
export function answerOf(result: DuckDBResultReader): Answer;
export function compareAnswers(form: CheckForm, ref: Answer, got: Answer, member: Member): Promise<string>;
export function judgeAnswers(form: CheckForm, checked: { ref: Answer; got: Answer }, plain: { ref: Answer; got: Answer }, member: Member): Promise<string>;
export function missingRows(conn: DuckDBConnection, fullSql: string, types: string[], rows: (string | null)[][]): Promise<(string | null)[][]>;
