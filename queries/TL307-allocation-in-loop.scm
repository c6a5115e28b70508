; TL307 allocation-in-loop (opt-in)
; A tensor factory with a loop-invariant shape, on every step, whose
; result is scratch (it does not outlive the iteration).
((call
  arguments: (argument_list) @_args) @finding
  (#api? @finding tensor-factory)
  (#per-step? @finding any)
  (#loop-invariant? @_args)
  (#dies-in-iteration? @finding))
