; TL218 fsdp-optimizer-before-wrap
; An optimizer built over a model's parameters before FSDP (or
; fully_shard) wraps the model, with no optimizer built after the wrap:
; the wrapper replaces the parameters by sharded ones, so the optimizer
; steps tensors the model no longer uses.
((call
  function: [
    (identifier)
    (attribute)
  ]) @finding
  (#optimizer-before-shard? @finding))
