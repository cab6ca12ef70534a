#!/usr/bin/env node
// Runs upstream ELK layered (elkjs) for the workflow-renderer `elkjs` layout provider.
//
// Per-call mode:  node layout.js INPUT.json OUTPUT.json
//   INPUT.json is one ELK JSON graph (layout options on the root). OUTPUT.json receives
//   {"graph": <the laid-out ELK graph>, "layoutMilliseconds": <time inside elk.layout>}.
//   Exit codes: 0 done, 1 ELK failed, 2 bad usage or unreadable input. Errors go to stderr.
//
// Worker mode:    node layout.js --worker
//   Reads one JSON request per line on stdin: {"id": N, "graph": <ELK graph>} and writes one
//   JSON line per request on stdout, in order: {"id": N, "graph": ..., "layoutMilliseconds": T}
//   or {"id": N, "error": "<message>"}. Exits 0 when stdin closes.
"use strict";

const fs = require("fs");
const readline = require("readline");
const ELK = require("elkjs");

const elk = new ELK();

async function layoutTimed(graph) {
  if (graph === null || typeof graph !== "object" || Array.isArray(graph)) {
    throw new Error("the ELK graph must be a JSON object");
  }
  const started = process.hrtime.bigint();
  const laidOut = await elk.layout(graph);
  const layoutMilliseconds = Number(process.hrtime.bigint() - started) / 1e6;
  return { graph: laidOut, layoutMilliseconds };
}

function describe(error) {
  if (error instanceof Error) {
    return error.message || String(error);
  }
  if (error && typeof error === "object" && error.message) {
    return String(error.message);
  }
  return String(error);
}

async function runOnce(inputPath, outputPath) {
  let graph;
  try {
    graph = JSON.parse(fs.readFileSync(inputPath, "utf8"));
  } catch (error) {
    process.stderr.write(`cannot read ELK graph from ${inputPath}: ${describe(error)}\n`);
    return 2;
  }
  let answer;
  try {
    answer = await layoutTimed(graph);
  } catch (error) {
    process.stderr.write(`ELK layout failed: ${describe(error)}\n`);
    return 1;
  }
  fs.writeFileSync(outputPath, JSON.stringify(answer));
  return 0;
}

async function answerRequest(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { id: null, error: `request is not JSON: ${describe(error)}` };
  }
  const id = request && typeof request === "object" ? request.id ?? null : null;
  try {
    const answer = await layoutTimed(request.graph);
    return { id, ...answer };
  } catch (error) {
    return { id, error: `ELK layout failed: ${describe(error)}` };
  }
}

async function runWorker() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") {
      continue;
    }
    const reply = await answerRequest(line);
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
  return 0;
}

async function main(args) {
  if (args.length === 1 && args[0] === "--worker") {
    return runWorker();
  }
  if (args.length === 2) {
    return runOnce(args[0], args[1]);
  }
  process.stderr.write("usage: node layout.js INPUT.json OUTPUT.json | node layout.js --worker\n");
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`elk-layout crashed: ${describe(error)}\n`);
    process.exitCode = 1;
  },
);
