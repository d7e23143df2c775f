// Loaded by the aguitest harness into a Node program under test
// (NODE_OPTIONS=--require), because Node's HTTP clients (fetch, http,
// https) ignore HTTP_PROXY and HTTPS_PROXY: every TCP connection to a host
// other than this machine is refused before it is opened (before any DNS
// lookup), and logged for the harness to report, with the first frame of
// the program's own code that opened it. AGUITEST_ALLOW_HOSTS names the
// hosts that may be reached all the same.
"use strict";
const net = require("node:net");
const fs = require("node:fs");
const { AsyncLocalStorage } = require("node:async_hooks");

const log = process.env.AGUITEST_GUARD_LOG;
const allow = new Set((process.env.AGUITEST_ALLOW_HOSTS || "").split(",").filter(Boolean).map((h) => h.toLowerCase()));

function local(host) {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (net.isIPv4(h)) return h.startsWith("127.");
  if (net.isIPv6(h)) return h === "::1" || /^::ffff:127\./.test(h);
  return false;
}

// where returns the first frame of the program's own code in the stack,
// or else the first frame of a file outside Node's own code.
function where() {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const stack = new Error().stack || "";
  Error.stackTraceLimit = limit;
  const frames = stack.split("\n").slice(1).map((l) => l.trim().replace(/^at (async )?/, ""));
  const file = (f) => /\((file:\/\/|\/)[^)]*\)$|^(file:\/\/|\/)/.test(f) && !f.includes(__filename);
  return frames.find((f) => file(f) && !f.includes("node_modules")) || frames.find((f) => file(f)) || "";
}

// fetch opens its connections a few ticks after it is called, when the
// caller's frames are gone from the stack: each call keeps its caller's
// frame for the connections it opens.
const caller = new AsyncLocalStorage();
if (typeof globalThis.fetch === "function") {
  const fetch = globalThis.fetch;
  globalThis.fetch = function (...args) {
    return caller.run(where(), () => fetch.apply(this, args));
  };
}

// target reads where a connect call goes: connect(options[, cb]),
// connect(port[, host][, cb]), connect(path[, cb]), or the normalized
// [options, cb] Node passes itself.
function target(args) {
  let a = args[0];
  if (Array.isArray(a)) a = a[0];
  if (a && typeof a === "object") {
    if (a.path) return null; // a Unix socket
    return { host: a.host || "localhost", port: Number(a.port) || 0 };
  }
  if (typeof a === "number" || (typeof a === "string" && /^\d+$/.test(a))) {
    return { host: typeof args[1] === "string" ? args[1] : "localhost", port: Number(a) };
  }
  return null; // a path
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const t = target(args);
  if (!t || local(t.host)) return connect.apply(this, args);
  const allowed = allow.has("*") || allow.has(t.host.toLowerCase());
  if (log) {
    try {
      fs.appendFileSync(log, JSON.stringify({ host: t.host, port: t.port, where: caller.getStore() || where(), allowed }) + "\n");
    } catch {}
  }
  if (allowed) return connect.apply(this, args);
  const err = new Error(`aguitest: a program under test may not reach ${t.host}:${t.port}; it was refused. Allow the host by name (CommandAgent.AllowHosts, --allow-host ${t.host}) if the test must reach it.`);
  err.code = "ECONNREFUSED";
  process.nextTick(() => this.destroy(err));
  return this;
};
