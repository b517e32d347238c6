#!/usr/bin/env node
// Validates every statemachines/*.asl.json with asl-validator after replacing its ${Name}
// placeholders with the sample values in sample-substitutions.json, the way CloudFormation's
// DefinitionSubstitutions would. Exits non-zero on any invalid definition or unknown placeholder.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const dir = __dirname;
const samples = JSON.parse(fs.readFileSync(path.join(dir, 'sample-substitutions.json'), 'utf8'));
const validator = path.join(dir, '..', 'node_modules', '.bin', 'asl-validator');
if (!fs.existsSync(validator)) {
  console.error('asl-validator is not installed: run `npm ci` at the repository root first');
  process.exit(2);
}

const files = fs.readdirSync(dir).filter((name) => name.endsWith('.asl.json')).sort();
if (files.length === 0) {
  console.error('no *.asl.json definitions in ' + dir);
  process.exit(2);
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'asl-'));
let failed = 0;
for (const name of files) {
  const source = fs.readFileSync(path.join(dir, name), 'utf8');
  const unknown = new Set();
  const rendered = source.replace(/\$\{([A-Za-z0-9]+)\}/g, (match, key) => {
    if (!(key in samples)) {
      unknown.add(key);
      return match;
    }
    return String(samples[key]);
  });
  if (unknown.size > 0) {
    console.error(`${name}: no sample value for ${[...unknown].join(', ')} in sample-substitutions.json`);
    failed++;
    continue;
  }
  const target = path.join(work, name);
  fs.writeFileSync(target, rendered);
  try {
    execFileSync(validator, ['--json-path', target], { stdio: 'inherit' });
    console.log(`${name}: valid`);
  } catch (e) {
    console.error(`${name}: INVALID`);
    failed++;
  }
}
fs.rmSync(work, { recursive: true, force: true });
process.exit(failed === 0 ? 0 : 1);
