// The keystroke the playground's timings are measured with, shared by playground.test.mjs
// and profile.mjs.

/// Runs in the page: `count` keystrokes into the textarea `selector`, each replacing the digit
/// after the first `needle` (another digit, then the original one again), typed through the
/// browser's editing path as a keystroke is (`insertText`). Returns, per keystroke:
///
/// - `frameMs`: from the keystroke to the next frame (evaluation, Leptos' DOM update, style,
///   layout, paint). Each keystroke is typed just after a frame, so this is at least the
///   display's frame interval (16.7 ms at 60 Hz) however little the keystroke costs: a
///   textarea without handlers measures 16.7 ms (`frameFloor`).
/// - `workMs`: the keystroke's own work, without the wait for the display: from the keystroke
///   until its task and microtasks are done (a message posted behind them), plus the next
///   frame's rendering (from its `requestAnimationFrame` callbacks until the task after it).
///   Under 16.7 ms, the keystroke's frame is on time.
export async function keystrokes([selector, needle, count]) {
  const area = document.querySelector(selector);
  const at = area.value.indexOf(needle) + needle.length;
  const original = area.value[at];
  const other = String((Number(original) + 1) % 10);
  area.focus();
  const frameMs = [];
  const workMs = [];
  for (let i = 0; i < count; i++) {
    area.setSelectionRange(at, at + 1);
    const start = performance.now();
    const typed = i % 2 === 0 ? other : original;
    document.execCommand("insertText", false, typed);
    let handled;
    const channel = new MessageChannel();
    channel.port1.onmessage = () => (handled = performance.now());
    channel.port2.postMessage(0);
    const frameAt = await new Promise((resolve) =>
      requestAnimationFrame(() => {
        const t = performance.now();
        setTimeout(() => resolve(t), 0);
      }),
    );
    const end = performance.now();
    frameMs.push(end - start);
    // The message ran after the frame: the frame followed the work without a wait.
    workMs.push(Math.min(handled ?? frameAt, frameAt) - start + (end - frameAt));
    if (area.value[at] !== typed) throw new Error(`${selector}: the keystroke did not land (${area.value.slice(at - 10, at + 5)})`);
  }
  return { frameMs, workMs };
}

/// `keystrokes` into a textarea added to `page` without any handler, as the measure's floor
/// (the display's frame interval); the textarea is removed after.
export async function frameFloor(page, count) {
  await page.evaluate(() => {
    const area = document.createElement("textarea");
    area.id = "frame-floor";
    area.value = "replicas: 1\n";
    document.body.append(area);
  });
  try {
    return await page.evaluate(keystrokes, ["#frame-floor", "replicas: 1", count]);
  } finally {
    await page.evaluate(() => document.querySelector("#frame-floor")?.remove());
  }
}
