// Optimizer update kernels (ApplyAdam, ...): Python writes the rule of update_rules.py into the holes.
// All inputs have the output's shape, so texel t of each holds the same four elements and the rule runs
// on vec4s; one draw per output (value, then each slot), RESULT naming which one this program returns.
{{SAMPLERS}}

vec4 compute4(int i) {
  int t = i >> 2;
{{BODY}}
  return {{RESULT}};
}
