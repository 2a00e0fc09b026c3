"use strict";
// Task stores for `A2AService({store})`: the service keeps the tasks in use plus a bounded
// cache and asks its store for the rest; the store carries the requests out on a thread of
// its own, in the order given, so the event loop never waits for the disk.

const native = require("../native.js");
const { call } = require("./errors.js");

const MAKE = Symbol("TaskStore");

/** A task store: in memory (`TaskStore.memory()`) or a SQLite file (`TaskStore.openSqlite(path)`). */
class TaskStore {
  #native;
  #what;

  /** @internal Use `TaskStore.memory()` or `TaskStore.openSqlite(path)`. */
  constructor(token, n, what) {
    if (token !== MAKE) throw new TypeError("use TaskStore.memory() or TaskStore.openSqlite(path)");
    this.#native = n;
    this.#what = what;
  }

  /** Every task in this process's memory: the service's working set stays bounded. */
  static memory() {
    return new TaskStore(MAKE, call(() => native.TaskStore.memory()), "memory");
  }

  /**
   * Opens (or creates) the SQLite store at `path`, the file `serve({store})` and
   * `a2a-wire serve --store` use; a file of an older release is migrated. Throws when it
   * cannot be opened.
   */
  static openSqlite(path) {
    if (typeof path !== "string" || path === "") throw new TypeError("openSqlite: expected a file path");
    return new TaskStore(MAKE, call(() => native.TaskStore.openSqlite(path)), path);
  }

  /** @internal Carries out one request of the service; resolves to its reply. */
  _answer(request) {
    return call(() => this.#native.answer(request));
  }

  /** Closes the store once the requests given are answered (idempotent). */
  close() {
    this.#native.close();
  }

  toString() {
    return `TaskStore(${this.#what})`;
  }
}

module.exports = { TaskStore };
