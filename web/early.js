// build.py inlines this into the pages' <head>, after `window.webtfIndex = <the build's wheels/index.json>;`, so
// that the downloads Python's start waits for begin at navigation: no script or manifest is fetched first (the
// snapshot's download is a first visit's critical path). web/python.js takes them over (window.webtfEarly).
// No snapshot download when ?snapshot=0 or when localStorage names the copy kept in Cache Storage (see python.js).
(() => {
  const built = window.webtfIndex;
  const wantSnapshot = new URLSearchParams(location.search).get("snapshot") !== "0";
  let kept = null;
  try {
    kept = localStorage.getItem("webtf-snapshot");
  } catch {}
  const file = wantSnapshot && built.snapshot && kept !== built.snapshot.file ? built.snapshot.file : null;
  const start = (path) => {
    const response = fetch(path);
    response.catch(() => {}); // python.js awaits it, and reports a failure there
    return response;
  };
  const snapshot = file && { file, response: start(file) }; // first: the largest, and the one waited for
  window.webtfEarly = { snapshot, wheel: start(`wheels/${built.wheel}`) };
})();
