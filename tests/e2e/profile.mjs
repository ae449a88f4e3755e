// Profiles the playground's keystrokes in Debian's headless Chromium (playwright-core), as the
// "re-evaluation time" test of playground.test.mjs times them: the synthetic cluster pasted,
// then keystrokes typed with insertText, each timed to the next frame. Not a test; for finding
// where a keystroke's time goes (BENCHMARKS.md, "Playground").
//
//   SITE_DIR=DIR node profile.mjs             a CPU profile of 40 keystrokes (after 20 to warm
//                                              up): self time by function; the profile is
//                                              written to last.cpuprofile (DevTools reads it)
//   PLAIN=1 ...                               no profiler: three medians of 20 keystrokes
//   TRACE=1 ...                               Chromium's trace instead: time by trace event
//                                              (layout, paint, hit tests, event dispatch)
//
//   TRACE_PAINTS=1, TRACE_STACKS=1 ...        with TRACE: paint time by element, and the
//                                              scripts that forced a layout (set
//                                              TRACE_CATEGORIES to add Chromium's
//                                              disabled-by-default-devtools.timeline{,.stack})
//   CHROMIUM_ARGS='--js-flags=...' ...         more Chromium flags
//   BENCH_FIRST=1 ...                          placementBench(200, 20, 40) first, as the test
//   STYLE='.editor { contain: strict; }' ...   more CSS for the page (a constructed style
//                                              sheet: the page's CSP refuses inline styles)
//
// SIZE=200 (200 nodes x 20 workloads, the matrix's second page as the test shows it) or 1000
// (about 13,000 lines); EDITOR and NEEDLE choose the edit (default: the workloads editor,
// the digit after "replicas: 1"; the nodes editor: EDITOR='#nodes-text' NEEDLE="cpu: '").
// Build the site with function names to read the profile:
// CARGO_PROFILE_WEB_STRIP=false scripts/trunk.sh build DIR.
import { chromium } from "playwright-core";
import { keystrokes } from "./keystrokes.mjs";
import { createServer } from "node:http";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
const siteDir = process.env.SITE_DIR;
const size = process.env.SIZE ?? "200"; // 200 or 1000
const editor = process.env.EDITOR ?? "#workloads-text";
const needle = process.env.NEEDLE ?? "replicas: 1";
const mime = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css" };
const server = createServer(async (req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  const rel = decodeURIComponent(url.pathname).replace(/^\/+/, "") || "index.html";
  try { const body = await readFile(path.join(siteDir, rel)); res.writeHead(200, { "content-type": mime[path.extname(rel)] ?? "application/octet-stream" }); res.end(body); } catch { res.writeHead(404).end(); }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage", ...(process.env.CHROMIUM_ARGS ?? "").split(" ").filter(Boolean)] });
const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
await page.goto(base); await page.waitForSelector(".matrix");
if (process.env.STYLE) {
  await page.evaluate((css) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }, process.env.STYLE);
}
if (process.env.BENCH_FIRST) await page.evaluate(() => window.placementBench(200, 20, 40));
const { nodes, workloads } = JSON.parse(await page.evaluate((n) => window.placementSynthetic(n, 20), Number(size)));
await page.evaluate(([nodes, workloads]) => {
  for (const [id, text] of [["#nodes-text", nodes], ["#workloads-text", workloads]]) {
    const a = document.querySelector(id); a.value = text; a.dispatchEvent(new Event("input", { bubbles: true }));
  }
}, [nodes, workloads]);
await page.waitForFunction(() => document.querySelectorAll(".matrix tbody tr").length === 20);
if (size === "200") {
  await page.locator("#matrix-filter-collapse").uncheck();
  await page.getByRole("button", { name: "Next nodes ▶" }).click();
}
await page.evaluate(keystrokes, [editor, needle, 20]); // warm
if (process.env.PLAIN) {
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (let round = 0; round < 3; round++) {
    const { frameMs, workMs } = await page.evaluate(keystrokes, [editor, needle, 20]);
    console.log(`plain: to next frame median of 20 ${med(frameMs).toFixed(1)} ms, work ${med(workMs).toFixed(1)} ms`);
  }
  await browser.close(); server.close(); process.exit(0);
}
const cdp = await page.context().newCDPSession(page);
if (process.env.TRACE) {
  const events = [];
  cdp.on("Tracing.dataCollected", (d) => events.push(...d.value));
  const done = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
  await cdp.send("Tracing.start", { categories: process.env.TRACE_CATEGORIES ?? "devtools.timeline,blink,v8.execute", transferMode: "ReportEvents" });
  const times = (await page.evaluate(keystrokes, [editor, needle, Number(process.env.COUNT ?? 40)])).frameMs;
  await cdp.send("Tracing.end"); await done;
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`to next frame median ${med(times).toFixed(1)} ms`);
  const agg = new Map(); const open = new Map();
  for (const e of events) {
    if (e.ph === "X" && e.dur) { const k = e.name; const a = agg.get(k) ?? [0, 0]; a[0] += e.dur; a[1]++; agg.set(k, a); }
    else if (e.ph === "B") { open.set(`${e.tid}:${e.name}`, e.ts); }
    else if (e.ph === "E") { const st = open.get(`${e.tid}:${e.name}`); if (st !== undefined) { const a = agg.get(e.name) ?? [0, 0]; a[0] += e.ts - st; a[1]++; agg.set(e.name, a); } }
  }
  if (process.env.TRACE_PAINTS) {
    const paints = new Map();
    for (const e of events) {
      if (e.name !== "Paint" || !e.dur) continue;
      const d = e.args?.data ?? {};
      const k = `${d.nodeName ?? "?"} layer ${d.layerId ?? "?"} clip ${JSON.stringify(d.clip ?? []).slice(0, 60)}`;
      const a = paints.get(k) ?? [0, 0]; a[0] += e.dur; a[1]++; paints.set(k, a);
    }
    [...paints.entries()].sort((a, b) => b[1][0] - a[1][0]).slice(0, 12).forEach(([k, [d, n]]) => console.log(`${(d / 1000).toFixed(1).padStart(8)} ms ${String(n).padStart(5)}x Paint ${k}`));
  }
  if (process.env.TRACE_STACKS) {
    const stacks = new Map();
    for (const e of events) {
      if (e.name !== "Layout" && e.name !== "UpdateLayoutTree") continue;
      const st = e.args?.beginData?.stackTrace ?? e.args?.data?.stackTrace;
      if (!st) continue;
      const k = `${e.name}: ` + st.slice(0, 4).map((f) => f.functionName || "(anon)").join(" < ");
      const a = stacks.get(k) ?? [0, 0]; a[0] += e.dur ?? 0; a[1]++; stacks.set(k, a);
    }
    [...stacks.entries()].sort((a, b) => b[1][0] - a[1][0]).slice(0, 15).forEach(([k, [d, n]]) => console.log(`${(d / 1000).toFixed(1).padStart(8)} ms ${String(n).padStart(5)}x ${k.slice(0, 200)}`));
  }
  [...agg.entries()].sort((a, b) => b[1][0] - a[1][0]).slice(0, 40).forEach(([k, [d, n]]) => console.log(`${(d / 1000).toFixed(1).padStart(9)} ms ${String(n).padStart(6)}x ${k}`));
  await browser.close(); server.close(); process.exit(0);
}
await cdp.send("Profiler.enable");
await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
await cdp.send("Profiler.start");
const times = (await page.evaluate(keystrokes, [editor, needle, Number(process.env.COUNT ?? 40)])).frameMs;
const { profile } = await cdp.send("Profiler.stop");
await writeFile("last.cpuprofile", JSON.stringify(profile));
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`to next frame median ${med(times).toFixed(1)} ms`);
// self time by function
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas; let total = 0;
profile.samples.forEach((id, i) => { const n = byId.get(id); const k = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").pop()}`; self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0)); total += dt[i] ?? 0; });
console.log(`total sampled ${(total / 1000).toFixed(0)} ms`);
[...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 45)).forEach(([k, v]) => console.log(`${(v / 1000).toFixed(1).padStart(8)} ms ${(100 * v / total).toFixed(1).padStart(5)}% ${k.slice(0, 150)}`));
await browser.close(); server.close();
