/* global require, process */
// Preloaded into the API process by bench/settle-baseline.ts (NODE_OPTIONS=--require): records
// every statement pg runs (client, text, values) to SETTLE_CAPTURE_FILE while that file exists,
// so the baseline replays exactly what the service ran for one settlement. Off: no cost.
const fs = require('node:fs');
const { Client } = require('pg');
const file = process.env.SETTLE_CAPTURE_FILE;
if (file) {
  const query = Client.prototype.query;
  let clients = 0;
  Client.prototype.query = function capture(config, values, cb) {
    if (fs.existsSync(file)) {
      if (this.__captureId === undefined) this.__captureId = ++clients;
      const text = typeof config === 'string' ? config : config && config.text;
      const vals = Array.isArray(values) ? values : config && config.values;
      if (text) fs.appendFileSync(file, JSON.stringify({ client: this.__captureId, text, values: vals ?? [] }) + '\n');
    }
    return query.call(this, config, values, cb);
  };
}

// SETTLE_CPU_PROFILE=<file>: each SIGUSR2 starts a CPU profile, the next writes it to <file>.<n>
// (NODE_OPTIONS may not carry --cpu-prof), so the driver profiles only the settlement rounds.
const profileFile = process.env.SETTLE_CPU_PROFILE;
if (profileFile) {
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 250 });
  let on = false;
  let n = 0;
  process.on('SIGUSR2', () => {
    if (!on) session.post('Profiler.start');
    else session.post('Profiler.stop', (err, res) => !err && fs.writeFileSync(`${profileFile}.${++n}`, JSON.stringify(res.profile)));
    on = !on;
  });
}
