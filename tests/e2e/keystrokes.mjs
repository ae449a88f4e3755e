// The keystroke the playground's timings are measured with, shared by playground.test.mjs
// and profile.mjs.

/// Runs in the page: `count` keystrokes into the textarea `selector`, each replacing the digit
/// after the first `needle` (another digit, then the original one again), typed through the
/// browser's editing path as a keystroke is (`insertText`); returns the time of each from the
/// keystroke to the next frame (evaluation, Leptos' DOM update, style, layout).
export async function keystrokes([selector, needle, count]) {
  const area = document.querySelector(selector);
  const at = area.value.indexOf(needle) + needle.length;
  const original = area.value[at];
  const other = String((Number(original) + 1) % 10);
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  area.focus();
  const times = [];
  for (let i = 0; i < count; i++) {
    area.setSelectionRange(at, at + 1);
    const start = performance.now();
    const typed = i % 2 === 0 ? other : original;
    document.execCommand("insertText", false, typed);
    await frame();
    times.push(performance.now() - start);
    if (area.value[at] !== typed) throw new Error(`${selector}: the keystroke did not land (${area.value.slice(at - 10, at + 5)})`);
  }
  return times;
}
