// What the phone keeps across a reload, in IndexedDB (the plain API): the pairing
// {uid, key, table, seat}, the lock record {pid, sel, nonce, commitment, sealed, state, uid,
// table, seat, commits once alllocked gave them, text, wheels} and the last 16 closed prompt
// ids: the firmware's lock.json and closed.json (core/store.py). A lock is written before its
// commit leaves, and removed only when its `revealed` confirms it, it is void, or unlocked.
"use strict";

const DB = "dialbox-phone";
const KV = "kv";
let dbp = null;
const memory = new Map();  // where IndexedDB is missing (some private modes): forgets on reload
export let durable = typeof indexedDB !== "undefined";

function open() {
  if (!dbp) {
    dbp = new Promise((resolve, reject) => {
      const req = indexedDB.open(DB, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(KV);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
      req.onblocked = () => reject(new Error("the phone's storage is blocked by another tab"));
    });
  }
  return dbp;
}

function run(mode, fn) {
  return open().then((db) => new Promise((resolve, reject) => {
    const tx = db.transaction(KV, mode);
    const req = fn(tx.objectStore(KV));
    tx.oncomplete = () => resolve(req ? req.result : undefined);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error || new Error("storage transaction aborted"));
  }));
}

export async function get(key) {
  if (durable) {
    try {
      const v = await run("readonly", (st) => st.get(key));
      return v === undefined ? null : v;
    } catch {
      durable = false;
    }
  }
  return memory.has(key) ? memory.get(key) : null;
}

export async function put(key, value) {
  if (durable) {
    try {
      // a plain copy: what is stored is what was decided, not a live object
      await run("readwrite", (st) => st.put(JSON.parse(JSON.stringify(value)), key));
      return;
    } catch {
      durable = false;
    }
  }
  memory.set(key, JSON.parse(JSON.stringify(value)));
}

export async function del(key) {
  if (durable) {
    try {
      await run("readwrite", (st) => st.delete(key));
      return;
    } catch {
      durable = false;
    }
  }
  memory.delete(key);
}

/** The controller's store: the lock record and the closed prompt ids. */
export const lockStore = {
  saveLock: (rec) => put("lock", rec),
  clearLock: () => del("lock"),
  saveClosed: (pids) => put("closed", pids),
};
