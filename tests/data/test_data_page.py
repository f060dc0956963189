"""tf.data in the page: tf.data.csv fetching a URL against TF.js 4.22.0's tf.data.csv on the same URL and
config, and a pipeline with prefetch (a task on Pyodide's event loop) consumed with `async for`."""

from __future__ import annotations

import json

from tests.helpers import LOAD_TFJS_JS

CSV = 'x1,x2,name,label\n1,0.5,"a,b",1\n2,,c,0\r\n3,-1e2,d d,1\n4,0x10,"e""f",0\n'
CONFIG = {"x2": {"default": 7}, "label": {"is_label": True, "dtype": "int32"}}

TFJS_CSV_JS = (
    "async ([text, config]) => {"
    + LOAD_TFJS_JS
    + """
  window.webtfCsvUrl = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  const ds = tf.data.csv(window.webtfCsvUrl, { columnConfigs: config });
  return { rows: await ds.toArray(), columns: await ds.columnNames() };
}"""
)

WEBTF_PY = """
import js, json
before = tf.memory().num_tensors
config = json.loads(CONFIG)
ds = tf.data.csv(js.webtfCsvUrl, column_configs=config)
rows = await ds.to_array()
columns = await ds.column_names()
pipeline = (tf.data.array(list(range(40))).map(lambda v: tf.scalar(v * 1.0))
            .shuffle(8, seed=5).batch(6).prefetch(2))
passes = []
for _ in range(2):
    seen = []
    async for batch in pipeline:
        seen.extend(batch.array_sync())
        batch.dispose()
    passes.append(seen)
{"rows": rows, "columns": columns, "passes": passes, "leak": tf.memory().num_tensors - before}
"""


def test_csv_url_matches_tfjs_and_pipeline_runs(webtf_page, py):
    tfjs_config = {
        k: {{"is_label": "isLabel"}.get(key, key): v for key, v in c.items()} for k, c in CONFIG.items()
    }
    oracle = webtf_page.evaluate(TFJS_CSV_JS, [CSV, tfjs_config])
    res = py(f"CONFIG = {json.dumps(CONFIG)!r}\n" + WEBTF_PY)
    assert res["columns"] == oracle["columns"] == ["x1", "x2", "name", "label"]
    assert res["rows"] == oracle["rows"]
    passes = res["passes"]
    assert sorted(passes[0]) == sorted(passes[1]) == [float(v) for v in range(40)]
    assert passes[0] != passes[1]  # reshuffled each pass
    assert res["leak"] == 0
