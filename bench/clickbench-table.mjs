// A ClickBench-shaped `hits` table (issue 57), written once for bench/clickbench.mjs and
// test/clickbench.test.ts: our own deterministic generator (hash-based SQL over range(N), no
// randomness from outside DuckDB), the 43 queries read from ../shared/clickbench at run time (their
// licence is not ours: never copied into the repository), and the comparison of answers up to tied
// rows.
//
// The shape, where the queries care (../shared/clickbench/README.md):
// - hits come in sessions (visits): a session has a user, a counter (site), a traffic source and a
//   start in July 2013; its hits follow one another 1-79 s apart, each hit's Referer is the previous
//   hit's URL (TraficSourceID -1), the first hit's Referer is where the visit came from (empty for
//   direct visits; a search engine's URL with the SearchPhrase for searches; ...);
// - rows sorted by CounterID, EventDate, UserID, EventTime, WatchID;
// - counters: CounterID 62 has about 15% of the hits and four more 4-8% each, the rest spread over
//   20,000 counters with a cubic skew; two small counters are Google's sites (URLs with '.google.');
// - users: a heavy tail of 2,000 (bots, long sessions) has 10% of the sessions, the rest drawn from
//   rows/4 users with a skew; UserID 435090932899640449 is one of the heavy ones (q19);
// - URL: a site's pages (30,000 for CounterID 62, 10-3,000 for most) picked with a skew (the home
//   page 25%, the second page 8%), 40-200 bytes, plus a query string on 35% of hits (per-row
//   values on 15%); about 0.5-1% contain 'google' (Google's sites, a few pages, utm_source=google);
//   URLHash is the page's hash (the query string aside): CounterID 62's home page has q41's value
//   and its second page q40's RefererHash value;
// - Title: per page, mixed Latin and Cyrillic words, 2% empty, 1% of pages with 'Google';
// - SearchPhrase on the hits of search visits (about 15% of visits), from a skewed pool of phrases;
//   AdvEngineID on ad visits (2%); MobilePhoneModel on the mobile users (10%).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const LATIN = ['news', 'video', 'photo', 'online', 'free', 'download', 'game', 'music', 'movie', 'auto', 'sport', 'weather',
  'market', 'shop', 'sale', 'price', 'forum', 'blog', 'travel', 'hotel', 'map', 'city', 'home', 'work', 'job', 'realty',
  'estate', 'car', 'bank', 'credit', 'mobile', 'phone', 'top', 'best', 'new', 'world', 'life', 'kids', 'school', 'book',
  'recipe', 'health', 'beauty', 'fashion', 'style', 'tech', 'soft', 'club'];
const CYRILLIC = ['новости', 'видео', 'фото', 'скачать', 'бесплатно', 'игры', 'музыка', 'фильмы', 'авто', 'спорт', 'погода',
  'купить', 'цена', 'форум', 'отзывы', 'работа', 'вакансии', 'квартиры', 'недвижимость', 'кредит', 'банк', 'телефон',
  'знакомства', 'карта', 'москва', 'россия', 'смотреть', 'онлайн', 'сериалы', 'рецепты', 'здоровье', 'одежда'];
const MODELS = ['iPad', 'iPhone', 'GT-I9300', 'GT-I9100', 'GT-N7100', 'GT-S5830', 'Lumia 920', 'HTC One', 'Xperia Z', 'Nexus 4',
  'Nexus 7', 'GT-P5100', 'MI 2', 'C6603', 'LT26i', 'HTC Desire', 'A820', 'Lenovo A800', 'GT-S7562', 'Kindle Fire'];
const lit = (xs) => `[${xs.map((x) => (typeof x === 'number' ? String(x) : `'${x.replace(/'/g, "''")}'`)).join(', ')}]`;
// The constants the queries name.
export const HITS_CONSTANTS = { counter: 62, user: 435090932899640449n, urlHash: 2868770270353813622n, refererHash: 3594120000172545465n };
const TOP_COUNTERS = [62, 1143050, 16160, 3922, 731962, 4016080, 2402080]; // index 5 and 6: Google's sites

/** The temporary macros the generator uses (hash-based: the same rows for the same N, every run). */
const MACROS = [
  // uniform in [0, 1) and an integer in [0, n) from a seed and a salt
  'hx(x, s) AS hash(xor(hash(x), s::UBIGINT))',
  'pseed(c, p) AS hash(c::BIGINT * 1000003 + p)',
  'uni(x, s) AS (hx(x, s) >> 11)::DOUBLE / 9007199254740992',
  'pick(x, s, n) AS (hx(x, s) % n)::INTEGER',
  'signed64(x) AS (x::HUGEINT - 9223372036854775808)::BIGINT',
  'signed32(x) AS ((x % 4294967296)::BIGINT - 2147483648)::INTEGER',
  `wl(x, s) AS ${lit(LATIN)}[1 + pick(x, s, ${LATIN.length})]`,
  `wm(x, s) AS ${lit([...LATIN, ...CYRILLIC])}[1 + pick(x, s, ${LATIN.length + CYRILLIC.length})]`,
  // a counter from the shares: 15% CounterID 62, then 8, 6, 4, 3%, Google's sites 0.2 and 0.1%, then a cubic skew
  `counter_ix(r) AS CASE WHEN r < 0.15 THEN 0 WHEN r < 0.23 THEN 1 WHEN r < 0.29 THEN 2 WHEN r < 0.33 THEN 3 WHEN r < 0.36 THEN 4
     WHEN r < 0.362 THEN 5 WHEN r < 0.363 THEN 6 ELSE 7 + floor(20000 * pow((r - 0.363) / 0.637, 3))::INTEGER END`,
  `counter_id(ci) AS CASE WHEN ci < ${TOP_COUNTERS.length} THEN ${lit(TOP_COUNTERS)}[ci + 1] ELSE (1000 + hx(ci, 2) % 5000000)::INTEGER END`,
  // a site's domain
  `domain(ci) AS CASE ci WHEN 5 THEN 'maps.google.ru' WHEN 6 THEN 'images.google.com.ua' ELSE
     ['', 'www.', 'm.'][1 + pick(ci, 3, 3)] || wl(ci, 4) || CASE pick(ci, 5, 3) WHEN 0 THEN '-' ELSE '' END || wl(ci, 6) || '.'
     || ${lit(['ru', 'ru', 'ru', 'com', 'ua', 'net', 'org', 'by', 'kz', 'su'])}[1 + pick(ci, 7, 10)] END`,
  `page_count(ci) AS CASE ci WHEN 0 THEN 30000 WHEN 1 THEN 20000 WHEN 2 THEN 15000 WHEN 3 THEN 10000 WHEN 4 THEN 10000
     ELSE 10 + (hx(ci, 8) % 3000)::INTEGER END`,
  // the page of hit h on site ci: the home page a quarter of the time, the second page 8%, then a cubic skew
  `page_of(h, ci) AS CASE WHEN uni(h, 9) < 0.25 THEN 0 WHEN uni(h, 9) < 0.33 THEN 1
     ELSE 2 + floor((page_count(ci) - 2) * pow((uni(h, 9) - 0.33) / 0.67, 3))::INTEGER END`,
  `page_hash(ci, p) AS CASE WHEN ci = 0 AND p = 0 THEN ${HITS_CONSTANTS.urlHash} WHEN ci = 0 AND p = 1 THEN ${HITS_CONSTANTS.refererHash}
     ELSE signed64(hx(pseed(ci, p), 10)) END`,
  // a page's URL without the per-hit query string: 40-200 bytes
  `page_url(ci, p) AS 'http://' || domain(ci) || '/' || wl(pseed(ci, p), 11) || '/' || wl(pseed(ci, p), 12) || '-' || wl(pseed(ci, p), 13)
     || CASE WHEN pick(pseed(ci, p), 14, 2) = 0 THEN '-' || wl(pseed(ci, p), 15) || '-' || wl(pseed(ci, p), 16) ELSE '' END
     || CASE WHEN p >= 2 AND pick(pseed(ci, p), 17, 300) = 0 THEN '/google-' || wl(pseed(ci, p), 18) ELSE '' END
     || CASE WHEN pick(pseed(ci, p), 19, 5) = 0 THEN '/' || wl(pseed(ci, p), 20) || '_' || wl(pseed(ci, p), 21) || '_' || md5((ci::BIGINT * 1000003 + p)::VARCHAR) ELSE '' END
     || '/' || (hx(pseed(ci, p), 22) % 10000000)::VARCHAR
     || CASE pick(pseed(ci, p), 23, 4) WHEN 0 THEN '.html' WHEN 1 THEN '/'
          WHEN 2 THEN '.php?id=' || p::VARCHAR || '&cat=' || wl(pseed(ci, p), 24)
          ELSE '?item=' || (hx(pseed(ci, p), 25) % 100000)::VARCHAR || '&view=' || wl(pseed(ci, p), 26) || '&ref=' || wl(pseed(ci, p), 27) END`,
  // the query string hit h adds to its page's URL
  `url_tail(h, base) AS CASE WHEN pick(h, 28, 100) < 65 THEN '' ELSE CASE WHEN contains(base, '?') THEN '&' ELSE '?' END ||
     CASE WHEN pick(h, 28, 100) < 85 THEN 'page=' || (2 + pick(h, 29, 40))::VARCHAR
          WHEN pick(h, 28, 100) < 95 THEN 'sid=' || (hx(h, 30) % 1000000000)::VARCHAR
          ELSE 'utm_source=' || ${lit(['yandex', 'vk', 'mail', 'facebook', 'twitter', 'odnoklassniki', 'rambler', 'begun', 'google', 'direct'])}[1 + pick(h, 31, 10)] || '&utm_medium=cpc' END END`,
  `page_title(ci, p) AS CASE WHEN pick(pseed(ci, p), 32, 50) = 0 THEN '' ELSE
     wm(pseed(ci, p), 33) || ' ' || wm(pseed(ci, p), 34) || ' ' || wm(pseed(ci, p), 35)
     || CASE WHEN pick(pseed(ci, p), 36, 2) = 0 THEN ' ' || wm(pseed(ci, p), 37) || ' ' || wm(pseed(ci, p), 38) ELSE '' END
     || CASE WHEN p >= 2 AND pick(pseed(ci, p), 39, 100) = 0 THEN ' Google ' || wm(pseed(ci, p), 40) ELSE '' END
     || CASE WHEN pick(pseed(ci, p), 41, 3) = 0 THEN ' | ' || wm(pseed(ci, p), 42) || ' ' || wm(pseed(ci, p), 43) || ' ' || wm(pseed(ci, p), 44) ELSE '' END
     || ' — ' || domain(ci) END`,
  // the search phrase of a search visit: a skewed pool of 1-4 words
  `phrase(pi) AS wm(pi, 45) || ' ' || wm(pi, 46) || CASE pick(pi, 47, 3) WHEN 0 THEN '' WHEN 1 THEN ' ' || wm(pi, 48)
     ELSE ' ' || wm(pi, 48) || ' ' || wm(pi, 49) END`,
];

/** The statements that fill the table `hits` (created beforehand by create.sql) with `rows` rows. */
export function hitsStatements(rows) {
  const N = Math.floor(rows);
  if (!(N > 0)) throw new Error(`hits: ${rows} rows`);
  const S = Math.ceil(N / 5) + 1000; // sessions average about 6.5 hits: more than enough
  const U = Math.max(1000, Math.floor(N / 4)); // ordinary users
  return [
    ...MACROS.map((m) => `CREATE OR REPLACE TEMP MACRO ${m}`),
    // Sessions: user, counter, length, start; first_row numbers the hits so that exactly N are kept.
    `CREATE OR REPLACE TEMP TABLE cb_sessions AS
     WITH s AS (
       SELECT j, u,
         CASE WHEN uni(j, 50) < 0.5 THEN ci_home ELSE ci_own END AS ci,
         least(CASE WHEN u < 2000 THEN 60 ELSE 40 END, 1 + floor(-ln(1 - uni(j, 51)) * CASE WHEN u < 2000 THEN 12 ELSE 6 END))::INTEGER AS L,
         pick(j, 52, 31) AS day, pick(j, 53, 84000) AS tod,
         CASE WHEN uni(j, 54) < 0.30 THEN 0 WHEN uni(j, 54) < 0.55 THEN 1 WHEN uni(j, 54) < 0.70 THEN 2 WHEN uni(j, 54) < 0.72 THEN 3
              WHEN uni(j, 54) < 0.78 THEN 6 WHEN uni(j, 54) < 0.84 THEN 8 ELSE 4 END AS src
       FROM (
         SELECT j, u,
           counter_ix(uni(u, 55)) AS ci_home, counter_ix(uni(j, 56)) AS ci_own
         FROM (
           SELECT j, CASE WHEN uni(j, 57) < 0.1 THEN floor(2000 * pow(uni(j, 58), 2))::BIGINT
                          ELSE 2000 + floor(${U} * pow(uni(j, 58), 1.5))::BIGINT END AS u
           FROM range(${S}) r(j))))
     SELECT *, sum(L) OVER (ORDER BY j ROWS UNBOUNDED PRECEDING) - L AS first_row FROM s`,
    // The hits' sort keys, sorted (a narrow sort); the wide row is computed from these in order.
    `CREATE OR REPLACE TEMP TABLE cb_keys AS
     SELECT j, u, ci, L, src, k, j * 64 + k AS h,
       counter_id(ci) AS CounterID,
       CASE WHEN u = 1 THEN ${HITS_CONSTANTS.user} ELSE signed64(hx(u, 59)) END AS UserID,
       TIMESTAMP '2013-07-01' + to_seconds(day * 86400 + tod + k * 40 + pick(j * 64 + k, 60, 40)) AS EventTime,
       signed64(hx(j * 64 + k, 61)) AS WatchID
     FROM (SELECT *, unnest(range(L)) AS k FROM cb_sessions)
     WHERE first_row + k < ${N}
     ORDER BY CounterID, EventTime::DATE, UserID, EventTime, WatchID`,
    // Per hit: the page and the previous hit's page, the URL and the previous URL (each hit's Referer
    // inside a visit), then every column.
    `INSERT INTO hits BY NAME
     SELECT ${Object.entries(COLUMNS).map(([name, sql]) => `${sql} AS ${name}`).join(',\n       ')}
     FROM (
      SELECT *, ${referer} AS ref
      FROM (
       SELECT *, url_base || url_tail(h, url_base) AS url, prev_base || url_tail(h - 1, prev_base) AS prev_url
       FROM (
         SELECT *, page_url(ci, pg) AS url_base, CASE WHEN k > 0 THEN page_url(ci, ppg) END AS prev_base
         FROM (
           SELECT *, page_of(h, ci) AS pg, page_of(h - 1, ci) AS ppg,
             CASE WHEN src = 2 THEN floor(200000 * pow(uni(j, 62), 3))::INTEGER END AS pi,
             CASE WHEN uni(u, 63) < 0.1 THEN floor(${MODELS.length} * pow(uni(u, 64), 2))::INTEGER END AS model,
             uni(u, 65) < 0.1 AS mobile,
             CASE WHEN src = 2 THEN CASE WHEN uni(j, 66) < 0.6 THEN 2 WHEN uni(j, 66) < 0.85 THEN 3 ELSE 1 + pick(j, 67, 30) END ELSE 0 END AS engine,
             pick(u, 68, 100) AS res
           FROM cb_keys))))`,
    'DROP TABLE cb_keys',
    'DROP TABLE cb_sessions',
  ];
}

// Screen resolutions: a user's from a skewed list (desktops), or a phone's.
const RES_W = [1366, 1920, 1280, 1280, 1440, 1600, 1024, 1680, 1920, 1360];
const RES_H = [768, 1080, 1024, 800, 900, 900, 768, 1050, 1200, 768];
const MOB_W = [320, 768, 360, 480, 720], MOB_H = [480, 1024, 640, 800, 1280];
const resW = `CASE WHEN mobile THEN ${lit(MOB_W)}[1 + res % 5] ELSE ${lit(RES_W)}[1 + floor(10 * pow(res / 100, 2))::INTEGER] END`;
const resH = `CASE WHEN mobile THEN ${lit(MOB_H)}[1 + res % 5] ELSE ${lit(RES_H)}[1 + floor(10 * pow(res / 100, 2))::INTEGER] END`;
const first = 'k = 0';
const searchUrl = `CASE WHEN engine = 2 THEN 'http://yandex.ru/yandsearch?text=' || replace(phrase(pi), ' ', '+') || '&lr=' || pick(u, 70, 300)::VARCHAR
  WHEN engine = 3 THEN 'http://www.google.ru/url?sa=t&rct=j&q=' || replace(phrase(pi), ' ', '+') || '&source=web&cd=' || (1 + pick(j, 71, 10))::VARCHAR
  ELSE 'http://go.mail.ru/search?q=' || replace(phrase(pi), ' ', '+') || '&fr=main' END`;
const referer = `CASE WHEN k > 0 THEN prev_url ELSE CASE src
  WHEN 0 THEN ''
  WHEN 1 THEN 'http://' || domain(7 + floor(20000 * pow(uni(j, 72), 3))::INTEGER) || '/' || wl(j, 73) || '/' || wl(j, 74) || '-' || (hx(j, 75) % 100000)::VARCHAR || '.html'
  WHEN 2 THEN ${searchUrl}
  WHEN 3 THEN 'http://an.yandex.ru/count/' || (hx(j, 76) % 100000000000000)::VARCHAR || '?test-tag=' || pick(j, 77, 1000)::VARCHAR
  WHEN 6 THEN 'http://news.yandex.ru/' || wl(j, 78) || '.html'
  WHEN 8 THEN 'http://vk.com/' || CASE WHEN pick(j, 79, 2) = 0 THEN 'feed' ELSE 'away.php?to=' || wl(j, 80) END
  ELSE 'http://' || wl(j, 81) || '.ru/' END END`;
const ms = (s, p) => `CASE WHEN pick(h, ${s}, 100) < ${p} THEN floor(exp(uni(h, ${s + 1}) * 8))::INTEGER ELSE 0 END`;

/** The 105 columns of create.sql, each an expression over the session, user and hit. */
const COLUMNS = {
  WatchID: 'WatchID',
  JavaEnable: '(uni(u, 100) < 0.6)::INTEGER',
  Title: 'page_title(ci, pg)',
  GoodEvent: 'CASE WHEN pick(h, 101, 1000) = 0 THEN 0 ELSE 1 END',
  EventTime: 'EventTime',
  EventDate: 'EventTime::DATE',
  CounterID: 'CounterID',
  ClientIP: 'signed32(hx(u::BIGINT * 1000003 + CASE WHEN uni(j, 102) < 0.2 THEN j ELSE -1 END, 103))',
  RegionID: `CASE WHEN uni(u, 104) < 0.25 THEN 229 WHEN uni(u, 104) < 0.35 THEN 2 WHEN uni(u, 104) < 0.40 THEN 208
    ELSE 1 + floor(10000 * pow((uni(u, 104) - 0.4) / 0.6, 2))::INTEGER END`,
  UserID: 'UserID',
  CounterClass: 'pick(ci, 105, 4)',
  OS: `${lit([2, 2, 2, 3, 4, 39, 44, 56, 22, 7])}[1 + pick(u, 106, 10)]`,
  UserAgent: `${lit([7, 7, 2, 3, 4, 9, 15, 8, 1, 30])}[1 + pick(u, 107, 10)]`,
  URL: 'url',
  Referer: 'ref',
  IsRefresh: '(pick(h, 108, 100) < 7)::INTEGER',
  RefererCategoryID: `CASE WHEN k > 0 THEN pick(ci, 109, 20) WHEN src = 0 THEN 0 ELSE pick(j, 110, 20) END`,
  RefererRegionID: `CASE WHEN src = 0 AND k = 0 THEN 0 ELSE ${lit([229, 2, 208, 0])}[1 + pick(j, 111, 4)] END`,
  URLCategoryID: 'pick(ci, 112, 20)',
  URLRegionID: `${lit([229, 2, 208, 0])}[1 + pick(ci, 113, 4)]`,
  ResolutionWidth: resW,
  ResolutionHeight: resH,
  ResolutionDepth: `${lit([24, 32, 16])}[1 + pick(u, 114, 3)]`,
  FlashMajor: `${lit([0, 11, 11, 10])}[1 + pick(u, 115, 4)]`,
  FlashMinor: 'pick(u, 116, 9)',
  FlashMinor2: `${lit(['', '', '0', '1', '2', '3', '5', '7', '202'])}[1 + pick(u, 117, 9)]`,
  NetMajor: 'pick(u, 118, 5)',
  NetMinor: 'pick(u, 119, 5)',
  UserAgentMajor: '1 + pick(u, 120, 40)',
  UserAgentMinor: `${lit(['0', '1', '2', '3', '4', '5', '8', '9', 'a', 'b', 'D0', '5A'])}[1 + pick(u, 121, 12)]`,
  CookieEnable: '(uni(u, 122) < 0.97)::INTEGER',
  JavascriptEnable: '(uni(u, 123) < 0.98)::INTEGER',
  IsMobile: 'mobile::INTEGER',
  MobilePhone: `CASE WHEN model IS NULL THEN 0 ELSE 1 + model % 7 END`,
  MobilePhoneModel: `coalesce(${lit(MODELS)}[1 + model], '')`,
  Params: `CASE WHEN pick(h, 124, 100) = 0 THEN '{"' || wl(h, 125) || '":' || pick(h, 126, 100)::VARCHAR || '}' ELSE '' END`,
  IPNetworkID: '(1 + hx(u, 127) % 100000)::INTEGER',
  TraficSourceID: 'CASE WHEN k > 0 THEN -1 ELSE src END',
  SearchEngineID: 'engine',
  SearchPhrase: "CASE WHEN pi IS NULL THEN '' ELSE phrase(pi) END",
  AdvEngineID: `CASE WHEN src = 3 THEN ${lit([2, 2, 2, 3, 3, 4, 13, 27, 12, 16])}[1 + pick(j, 128, 10)] ELSE 0 END`,
  IsArtifical: '(pick(h, 129, 100) = 0)::INTEGER',
  WindowClientWidth: `greatest(0, ${resW} - pick(j, 130, 320))`,
  WindowClientHeight: `greatest(0, ${resH} - 60 - pick(j, 131, 300))`,
  ClientTimeZone: `${lit([-1, 4, 4, 4, 3, 2, 5, 6])}[1 + pick(u, 132, 8)]`,
  ClientEventTime: 'EventTime + to_seconds(pick(u, 133, 121) - 60)',
  SilverlightVersion1: `${lit([0, 0, 5, 4])}[1 + pick(u, 134, 4)]`,
  SilverlightVersion2: 'pick(u, 135, 2)',
  SilverlightVersion3: `${lit([0, 51204, 60310, 40818])}[1 + pick(u, 136, 4)]`,
  SilverlightVersion4: 'pick(u, 137, 2)',
  PageCharset: `${lit(['utf-8', 'utf-8', 'windows-1251', 'koi8-r'])}[1 + pick(ci, 138, 4)]`,
  CodeVersion: '(hx(ci, 139) % 500)::INTEGER',
  IsLink: '(pick(h, 140, 100) < 6)::INTEGER',
  IsDownload: '(pick(h, 141, 100) = 0)::INTEGER',
  IsNotBounce: '(L > 1)::INTEGER',
  FUniqID: 'CASE WHEN uni(u, 142) < 0.3 THEN 0 ELSE signed64(hx(u, 143)) END',
  OriginalURL: "CASE WHEN pick(h, 144, 100) = 0 THEN url_base ELSE '' END",
  HID: '(hx(h, 145) % 2147483647)::INTEGER',
  IsOldCounter: '(pick(ci, 146, 10) = 0)::INTEGER',
  IsEvent: '(pick(h, 147, 50) = 0)::INTEGER',
  IsParameter: '(pick(h, 148, 100) = 0)::INTEGER',
  DontCountHits: '(pick(h, 149, 100) < 3)::INTEGER',
  WithHash: '(pick(h, 150, 100) < 3)::INTEGER',
  HitColor: `${lit(['5', 'E', 'E', 'F', 'D'])}[1 + pick(h, 151, 5)]`,
  LocalEventTime: 'EventTime + to_seconds(3600 * pick(u, 152, 4))',
  Age: 'pick(u, 153, 6)',
  Sex: 'pick(u, 154, 3)',
  Income: 'pick(u, 155, 5)',
  Interests: 'pick(u, 156, 16384)',
  Robotness: '(u < 100)::INTEGER',
  RemoteIP: 'signed32(hx(j, 157))',
  WindowName: 'CASE WHEN pick(h, 158, 2) = 0 THEN -1 ELSE (hx(j, 159) % 2147483647)::INTEGER END',
  OpenerName: 'CASE WHEN pick(h, 160, 4) > 0 THEN -1 ELSE (hx(j, 161) % 2147483647)::INTEGER END',
  HistoryLength: 'least(k + 1, 50)',
  BrowserLanguage: `${lit(['ru', 'ru', 'ru', 'en', 'uk', 'be', 'de', 'tr', 'kk', ''])}[1 + pick(u, 162, 10)]`,
  BrowserCountry: `${lit(['ru', 'ru', 'ru', 'ua', 'by', 'kz', 'en', 'de', 'tr', ''])}[1 + pick(u, 163, 10)]`,
  SocialNetwork: `CASE WHEN pick(h, 164, 200) = 0 THEN ${lit(['vkontakte', 'facebook', 'twitter', 'odnoklassniki'])}[1 + pick(h, 165, 4)] ELSE '' END`,
  SocialAction: `CASE WHEN pick(h, 164, 200) = 0 THEN ${lit(['like', 'share', 'tweet'])}[1 + pick(h, 166, 3)] ELSE '' END`,
  HTTPError: `CASE WHEN pick(h, 167, 200) = 0 THEN ${lit([404, 404, 500, 403])}[1 + pick(h, 168, 4)] ELSE 0 END`,
  SendTiming: ms(169, 30),
  DNSTiming: ms(171, 30),
  ConnectTiming: ms(173, 30),
  ResponseStartTiming: ms(175, 30),
  ResponseEndTiming: ms(177, 30),
  FetchTiming: ms(179, 30),
  SocialSourceNetworkID: `CASE WHEN src = 8 THEN 1 + pick(j, 181, 5) ELSE 0 END`,
  SocialSourcePage: `CASE WHEN src = 8 AND ${first} THEN 'http://vk.com/' || wl(j, 182) ELSE '' END`,
  ParamPrice: 'CASE WHEN pick(h, 183, 200) = 0 THEN (hx(h, 184) % 100000)::BIGINT ELSE 0 END',
  ParamOrderID: "CASE WHEN pick(h, 183, 200) = 0 THEN (hx(h, 185) % 1000000)::VARCHAR ELSE '' END",
  ParamCurrency: "CASE WHEN pick(h, 183, 200) = 0 THEN 'RUB' ELSE '' END",
  ParamCurrencyID: 'CASE WHEN pick(h, 183, 200) = 0 THEN 643 ELSE 0 END',
  OpenstatServiceName: "CASE WHEN src = 3 AND pick(j, 186, 4) = 0 THEN 'direct.yandex.ru' ELSE '' END",
  OpenstatCampaignID: "CASE WHEN src = 3 AND pick(j, 186, 4) = 0 THEN pick(j, 187, 10000)::VARCHAR ELSE '' END",
  OpenstatAdID: "CASE WHEN src = 3 AND pick(j, 186, 4) = 0 THEN pick(j, 188, 100000)::VARCHAR ELSE '' END",
  OpenstatSourceID: "CASE WHEN src = 3 AND pick(j, 186, 4) = 0 THEN wl(j, 189) || '.ru' ELSE '' END",
  UTMSource: "CASE WHEN src = 3 THEN 'yandex' ELSE '' END",
  UTMMedium: "CASE WHEN src = 3 THEN 'cpc' ELSE '' END",
  UTMCampaign: "CASE WHEN src = 3 THEN wl(j, 190) || '_' || pick(j, 191, 100)::VARCHAR ELSE '' END",
  UTMContent: "CASE WHEN src = 3 AND pick(j, 192, 2) = 0 THEN 'banner' ELSE '' END",
  UTMTerm: "CASE WHEN src = 3 THEN wm(j, 193) ELSE '' END",
  FromTag: "CASE WHEN pick(j, 194, 100) = 0 THEN wl(j, 195) ELSE '' END",
  HasGCLID: '(src = 3 AND pick(j, 196, 10) = 0)::INTEGER',
  RefererHash: `CASE WHEN k > 0 THEN page_hash(ci, ppg) ELSE signed64(hash(ref)) END`,
  URLHash: 'page_hash(ci, pg)',
  CLID: 'CASE WHEN src = 2 AND pick(j, 197, 5) = 0 THEN (1955000 + pick(j, 198, 1000))::INTEGER ELSE 0 END',
};

/** Creates `hits` from `clickbenchDir`/create.sql and fills it with `rows` rows; checks the columns. */
export async function createHits(conn, clickbenchDir, rows) {
  await conn.run(readFileSync(join(clickbenchDir, 'create.sql'), 'utf8'));
  const names = (await conn.runAndReadAll("SELECT column_name FROM duckdb_columns() WHERE table_name = 'hits' AND schema_name = current_schema() ORDER BY column_index"))
    .getRowsJS().map((r) => String(r[0]));
  const ours = Object.keys(COLUMNS);
  const missing = names.filter((n) => !ours.includes(n)), extra = ours.filter((n) => !names.includes(n));
  if (missing.length || extra.length) throw new Error(`hits generator: columns missing ${missing.join(', ') || '—'}; unknown ${extra.join(', ') || '—'}`);
  for (const sql of hitsStatements(rows)) await conn.run(sql);
}

/** The 43 queries, `q00` ... `q42`, from `clickbenchDir`/queries. */
export function readQueries(clickbenchDir) {
  const dir = join(clickbenchDir, 'queries');
  return readdirSync(dir).filter((f) => /^q\d\d\.sql$/.test(f)).sort()
    .map((f) => ({ name: f.slice(0, 3), sql: readFileSync(join(dir, f), 'utf8').trim().replace(/;\s*$/, '') }));
}

/** Splits `s` at top-level occurrences of `sep` (outside parentheses and quotes). */
function splitTop(s, sep) {
  const out = [];
  let depth = 0, quote = false, start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'") quote = !quote;
    else if (quote) continue;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && s.startsWith(sep, i)) { out.push(s.slice(start, i)); start = i + sep.length; i += sep.length - 1; }
  }
  out.push(s.slice(start));
  return out;
}

/**
 * What answers are compared on. `check`: the query with its ORDER BY keys appended to the SELECT
 * list as columns __k0, __k1, ... (so that ties are visible even where a key is not selected:
 * `ORDER BY EventTime`); `full`: the check query without ORDER BY, LIMIT and OFFSET (the rows an
 * answer may choose among ties); `keys`: the number of appended columns; `limit`, `offset`.
 */
export function checkForm(sql) {
  const m = /^(.*?)(?:\s+ORDER BY\s+(.*?))?(?:\s+LIMIT\s+(\d+))?(?:\s+OFFSET\s+(\d+))?$/is.exec(sql);
  const [, body, orderBy, limit, offset] = m;
  const keys = orderBy ? splitTop(orderBy, ',').map((k) => k.trim().replace(/\s+(ASC|DESC)$/i, '')) : [];
  let check = body;
  if (keys.length) {
    const parts = splitTop(body, ' FROM ');
    if (!/^SELECT\s/i.test(parts[0]) || parts.length < 2) throw new Error(`checkForm: no top-level SELECT ... FROM in ${sql}`);
    check = `${parts[0]}, ${keys.map((k, i) => `${k} AS __k${i}`).join(', ')} FROM ${parts.slice(1).join(' FROM ')}`;
  }
  const full = check;
  if (orderBy) check += ` ORDER BY ${orderBy}`;
  if (limit) check += ` LIMIT ${limit}`;
  if (offset) check += ` OFFSET ${offset}`;
  return { check, full, keys: keys.length, limit: limit ? Number(limit) : null, offset: offset ? Number(offset) : 0 };
}

/** An answer: each cell as DuckDB's text, and the columns' types (for literals). */
export function answerOf(result) {
  return { types: result.columnTypes().map(String), rows: result.getRows().map((r) => r.map((v) => (v === null ? null : String(v)))) };
}

const rowKey = (r) => JSON.stringify(r);
function multiset(rows) {
  const m = new Map();
  for (const r of rows) m.set(rowKey(r), (m.get(rowKey(r)) ?? 0) + 1);
  return m;
}
function sameMultiset(a, b) {
  if (a.length !== b.length) return false;
  const m = multiset(a);
  for (const r of b) {
    const n = m.get(rowKey(r));
    if (!n) return false;
    m.set(rowKey(r), n - 1);
  }
  return true;
}

/**
 * Compares `got` (the check form's answer on some source) with `ref` (on DuckDB's table), up to
 * tied rows: 'same' (identical, in order), 'ties' (a valid answer that chose other rows among
 * ties) or 'DIFFERS: ...'. Rules: without ORDER BY and LIMIT the multisets must be equal. With
 * ORDER BY, the sequence of key values must be identical; rows of a key value that the window
 * (LIMIT/OFFSET) holds whole must be the same multiset; rows of a key value the window cuts (the
 * first one with an OFFSET, the last one where the LIMIT is reached) may differ, but each must be
 * a row of `form.full` over the table, which `member(rows)` checks (it returns the rows that are
 * not). A LIMIT without ORDER BY is one cut key value: every row must be such a row.
 */
export async function compareAnswers(form, ref, got, member) {
  if (JSON.stringify(ref.rows) === JSON.stringify(got.rows)) return 'same';
  if (ref.rows.length !== got.rows.length) return `DIFFERS: ${got.rows.length} rows, expected ${ref.rows.length}`;
  if (form.limit === null && form.keys === 0) return sameMultiset(ref.rows, got.rows) ? 'same' : `DIFFERS: ${firstDiff(ref.rows, got.rows)}`;
  const n = ref.rows.length;
  const keyOf = (r) => rowKey(r.slice(r.length - form.keys));
  for (let i = 0; i < n; i++) {
    if (keyOf(ref.rows[i]) !== keyOf(got.rows[i])) return `DIFFERS: ORDER BY keys of row ${i + 1}: ${keyOf(got.rows[i])}, expected ${keyOf(ref.rows[i])}`;
  }
  const cutFirst = form.offset > 0 ? keyOf(ref.rows[0]) : null;
  const cutLast = form.limit !== null && n === form.limit ? keyOf(ref.rows[n - 1]) : null;
  const groups = new Map();
  for (let i = 0; i < n; i++) {
    const k = keyOf(ref.rows[i]);
    if (!groups.has(k)) groups.set(k, { ref: [], got: [] });
    groups.get(k).ref.push(ref.rows[i]);
    groups.get(k).got.push(got.rows[i]);
  }
  const toVerify = [];
  for (const [k, g] of groups) {
    if (sameMultiset(g.ref, g.got)) continue;
    if (k !== cutFirst && k !== cutLast) return `DIFFERS: rows of ORDER BY key ${k}: ${firstDiff(g.ref, g.got)}`;
    toVerify.push(...g.got);
  }
  if (!toVerify.length) return 'same';
  const bad = await member(toVerify);
  return bad.length ? `DIFFERS: ${bad.length} row(s) among ties are not rows of the query, e.g. ${rowKey(bad[0])}` : 'ties';
}

/**
 * One source's answers judged against the table's: the check form's (compareAnswers), then the
 * timed query's own, which must be the same rows or, under a LIMIT, may hold other rows among ties
 * (judged by the check form). `checked` and `plain` are { ref, got } answers.
 */
export async function judgeAnswers(form, checked, plain, member) {
  let status = await compareAnswers(form, checked.ref, checked.got, member);
  if (status.startsWith('DIFFERS')) return status;
  const own = await compareAnswers({ ...form, keys: 0, limit: null }, plain.ref, plain.got, async () => []);
  if (own === 'same') return status;
  return form.limit !== null ? 'ties' : own;
}

function firstDiff(a, b) {
  const m = multiset(a);
  for (const r of b) {
    const n = m.get(rowKey(r));
    if (!n) return `row ${rowKey(r)} not expected`;
    m.set(rowKey(r), n - 1);
  }
  for (const [r, n] of m) if (n > 0) return `row ${r} missing`;
  return 'multisets equal';
}

/**
 * member() for compareAnswers: the rows (with `types`) of `rows` that `fullSql` does not give on
 * DuckDB's own table (run through `conn`), as one anti-join.
 */
export async function missingRows(conn, fullSql, types, rows) {
  const cols = types.map((_, i) => `c${i}`);
  const literal = (v, t) => (v === null ? `NULL::${t}` : `CAST('${v.replace(/'/g, "''")}' AS ${t})`);
  const values = rows.map((r, i) => `(${i}, ${r.map((v, c) => literal(v, types[c])).join(', ')})`).join(', ');
  const sql = `SELECT v.__i FROM (VALUES ${values}) v(__i, ${cols.join(', ')})
    WHERE NOT EXISTS (SELECT 1 FROM (${fullSql}) f(${cols.join(', ')}) WHERE ${cols.map((c) => `f.${c} IS NOT DISTINCT FROM v.${c}`).join(' AND ')})`;
  return (await conn.runAndReadAll(sql)).getRowsJS().map((r) => rows[Number(r[0])]);
}
