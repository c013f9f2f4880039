// Preloaded into the Testing Toolkit (node --require): TTK listens on every interface and its
// admin port (5050) is hard-coded. This binds every TCP listener of the process to 127.0.0.1,
// moves port 5050 to TTK_ADMIN_PORT when set (so runs side by side do not collide), and exits
// when the process that started it (TTK_PARENT_PID) is gone, so a killed test run leaves no
// toolkit behind. It also turns off keep-alive on TTK's callbacks (a memory leak, below) and
// extends TTK a little for test/ttk/rules.ts.
'use strict';
const net = require('node:net');

const HOST = '127.0.0.1';
const adminPort = Number(process.env.TTK_ADMIN_PORT) || 5050;

function mapPort(port) {
  return Number(port) === 5050 ? adminPort : port;
}

function isPort(value) {
  return typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value));
}

const originalListen = net.Server.prototype.listen;
net.Server.prototype.listen = function listen(...args) {
  const first = args[0];
  if (first && typeof first === 'object' && !Array.isArray(first) && first.path === undefined && first.fd === undefined && !first._handle && !(first instanceof net.Server)) {
    args[0] = { ...first, port: mapPort(first.port ?? 0), host: HOST };
  } else if (isPort(first) || first === undefined || typeof first === 'function') {
    // listen(), listen(cb), listen(port[, host][, backlog][, cb])
    if (!isPort(first)) args.unshift(0);
    args[0] = mapPort(args[0]);
    if (typeof args[1] === 'string' || args[1] === null || args[1] === undefined && args.length > 1) args[1] = HOST;
    else args.splice(1, 0, HOST);
  }
  return originalListen.apply(this, args);
};

// TTK sends its callbacks through keep-alive agents (src/lib/httpAgentStore.js; HTTP_CLIENT.KEEP_ALIVE
// false is ignored there: `false || true`), and about 0.25 MB of heap is kept per callback sent on
// a reused connection until that connection closes (0.7 MB per lookup, quote and transfer):
// hundreds of MB over a test file when our server keeps the connection open. A connection per callback keeps its heap flat (~110 MB) and costs nothing
// measurable on 127.0.0.1.
for (const mod of [require('node:http'), require('node:https')]) {
  const Agent = mod.Agent;
  mod.Agent = class OneRequestPerConnectionAgent extends Agent {
    constructor(options) {
      super({ ...options, keepAlive: false });
    }
  };
}

// Two additions to TTK, for test/ttk/rules.ts:
// - an `endsWithString` operator for its rules engine. TTK adds its own operators (includesString...)
//   per engine in src/lib/rulesEngine.js; json-rules-engine adds the entries of this module-level
//   array to every engine it creates.
// - `{$function.generic.isoInSeconds_<n>}`: now + n seconds (n may be negative), ISO 8601. TTK's
//   other way to compute a date, a rule script, builds a new vm context, websocket client and
//   event listener for each run (about 4 ms more per callback).
try {
  const path = require('node:path');
  const ttkDir = path.dirname(require.resolve('ml-testing-toolkit/package.json', { paths: [process.cwd(), __dirname] }));
  const operatorsFile = require.resolve('json-rules-engine/dist/engine-default-operators.js', { paths: [ttkDir] });
  const { default: Operator } = require(path.join(path.dirname(operatorsFile), 'operator.js'));
  require(operatorsFile).default.push(
    new Operator('endsWithString', (a, b) => typeof a === 'string' && typeof b === 'string' && a.endsWith(b)),
  );
  const genericFile = require.resolve(path.join(ttkDir, 'src', 'lib', 'mocking', 'custom-functions', 'generic.js'));
  const generic = require(genericFile);
  require.cache[genericFile].exports = new Proxy(generic, {
    get(target, name) {
      if (name in target) return target[name];
      const seconds = /^isoInSeconds_(-?\d+)$/.exec(String(name));
      return seconds ? () => new Date(Date.now() + Number(seconds[1]) * 1000).toISOString() : undefined;
    },
  });
} catch (err) {
  console.error('preload.cjs: could not extend TTK:', err);
}

const parentPid = Number(process.env.TTK_PARENT_PID);
if (parentPid > 0) {
  const timer = setInterval(() => {
    try {
      process.kill(parentPid, 0);
    } catch (err) {
      if (err.code === 'ESRCH') process.exit(0);
    }
  }, 1000);
  timer.unref();
}

// TTK_MEMORY_LOG_MS=5000: a line of process.memoryUsage() (MB) in TTK's log every 5 s (after a
// full garbage collection when node runs with --expose-gc, see TTK_NODE_ARGS in harness.ts).
const memoryLogMs = Number(process.env.TTK_MEMORY_LOG_MS);
if (memoryLogMs > 0) {
  setInterval(() => {
    if (typeof global.gc === 'function') global.gc();
    const mb = Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 1048576)]));
    console.error(`[ttk-memory] ${new Date().toISOString()} ${JSON.stringify(mb)}`);
  }, memoryLogMs).unref();
}
