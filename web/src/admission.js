// Loads the playground's admission module (the Kubewarden policy logic with Gatekeeper's
// Rego engine, built from web-admission/ into admission/ beside the page) on the first
// policy run, so that the page's first download does not carry the Rego interpreter.
// Same origin only: the page's Content-Security-Policy allows scripts from 'self'.

let loading;

function load() {
  if (!loading) {
    const base = new URL("admission/", document.baseURI);
    loading = import(new URL("placement_web_admission.js", base).href)
      .then(async (m) => {
        await m.default({ module_or_path: new URL("placement_web_admission_bg.wasm", base) });
        return m;
      })
      .catch((e) => {
        loading = undefined; // let the next run try again
        throw new Error(`could not load the admission module: ${e}`);
      });
  }
  return loading;
}

// A ReviewRequest (JSON text) in, a ReviewResponse (JSON text) out.
export async function review(request) {
  const m = await load();
  return m.review(request);
}
