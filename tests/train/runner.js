async ({ trainCases, problems, steps, lossCases }) => {
  // The tf.train and tf.losses cases with TF.js 4.22 on its cpu backend (the page's oracle): the same steps as
  // tests/train/runner.py's run_all, in the same order.
  await tf.setBackend("cpu");
  const make = (s) => tf.tensor(s.values, s.shape, "float32");
  const flat = (t) => Array.from(t.dataSync());
  const train = async (c) => {
    const p = problems[c.problem];
    const [x, y] = [make(p.x), make(p.y)];
    const w = tf.variable(make(p.w), true, "w");
    const b = tf.variable(make(p.b), true, "b");
    const out = { costs: [], error: null };
    try {
      const opt = eval(c.js);
      const f = () =>
        tf.tidy(() => {
          const logits = tf.add(tf.matMul(x, w), b);
          return c.problem === "regression"
            ? tf.mean(tf.square(tf.sub(logits, y)))
            : tf.losses.softmaxCrossEntropy(y, logits);
        });
      for (let i = 0; i < steps; i++) {
        if (i % 2) {
          const cost = opt.minimize(f, true, [w, b]);
          out.costs.push(cost.dataSync()[0]);
          cost.dispose();
        } else {
          opt.minimize(f);
        }
      }
      if (c.js_weights) {
        const weights = await opt.getWeights();
        out.weights = weights.map((nt) => [nt.name, flat(nt.tensor)]);
        weights[0].tensor.dispose();
      }
      out.w = flat(w);
      out.b = flat(b);
      opt.dispose();
    } catch (e) {
      out.error = String(e);
    } finally {
      tf.dispose([x, y, w, b]);
    }
    return out;
  };
  const loss = (c) => {
    try {
      return tf.tidy(() => {
        const inputs = Object.fromEntries(Object.entries(c.inputs).map(([k, s]) => [k, make(s)]));
        const f = new Function("tf", "labels", "predictions", "weights", `return ${c.js};`);
        const call = (p) => f(tf, inputs.labels, p, inputs.weights);
        return { value: flat(call(inputs.predictions)), grad: flat(tf.grad(call)(inputs.predictions)) };
      });
    } catch (e) {
      return { error: String(e) };
    }
  };
  const trained = [];
  for (const c of trainCases) trained.push(await train(c));
  return { train: trained, losses: lossCases.map(loss) };
}
