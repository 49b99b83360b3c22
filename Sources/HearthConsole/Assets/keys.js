// Firebase's key order and push IDs, as the SDKs implement them.

const INT32_KEY = /^-?(0|[1-9]\d{0,9})$/;

/** A key that is a 32-bit integer sorts as a number, before every other key. */
function integerKey(key) {
  if (!INT32_KEY.test(key) || key === "-0") return null;
  const value = Number(key);
  return value >= -2147483648 && value <= 2147483647 ? value : null;
}

/** `keys` in Firebase's order: 32-bit integers numerically, then the rest as strings. Each key
 *  is classified once, so sorting 100,000 keys takes the native sorts' time. */
export function sortKeys(keys) {
  const integers = [];
  const strings = [];
  for (const key of keys) {
    const value = integerKey(key);
    if (value === null) strings.push(key);
    else integers.push([value, key]);
  }
  integers.sort((a, b) => a[0] - b[0]);
  strings.sort();
  return integers.map((pair) => pair[1]).concat(strings);
}

const PUSH_CHARS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";

/** A new push ID: 8 characters of time, 12 random ones. */
export function pushID(now = Date.now()) {
  let time = "";
  for (let i = 0; i < 8; i++) {
    time = PUSH_CHARS.charAt(now % 64) + time;
    now = Math.floor(now / 64);
  }
  const random = crypto.getRandomValues(new Uint8Array(12));
  return time + Array.from(random, (byte) => PUSH_CHARS.charAt(byte % 64)).join("");
}

/** Whether `key` may name a child: non-empty, at most 768 bytes, none of . $ # [ ] / or controls. */
export function isValidKey(key) {
  return key.length > 0 && new TextEncoder().encode(key).length <= 768 && !/[.$#\[\]\/\x00-\x1f\x7f]/.test(key);
}

/** The REST URL path of database location `keys`: `/a/b%20c.json`. */
export function restPath(keys) {
  return "/" + keys.map(encodeURIComponent).join("/") + ".json";
}

/** The console's address of the history of the location `keys` in `namespace`. */
export function historyURL(namespace, keys) {
  return `/history/${encodeURIComponent(namespace)}` + keys.map((key) => "/" + encodeURIComponent(key)).join("");
}
