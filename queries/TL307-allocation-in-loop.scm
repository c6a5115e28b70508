; TL307 allocation-in-loop (opt-in)
; A tensor factory with a loop-invariant shape, on every step, whose
; result is scratch (it does not outlive the iteration). Each pattern sets
; `refill`, the in-place method that refills the hoisted tensor.

; torch.zeros / ones / empty / full / arange / linspace / eye
((call
  arguments: (argument_list) @_args) @finding
  (#api? @finding tensor-factory)
  (#not-api? @finding random-factory)
  (#per-step? @finding any)
  (#loop-invariant? @_args)
  (#dies-in-iteration? @finding)
  (#set! refill "`.zero_()`, `.fill_()`, `.copy_()`, `out=`"))

; torch.rand / randn / randint: new random numbers each step, drawn in place
((call
  arguments: (argument_list) @_args) @finding
  (#api? @finding random-factory)
  (#per-step? @finding any)
  (#loop-invariant? @_args)
  (#dies-in-iteration? @finding)
  (#set! refill "`.normal_()` for randn, `.uniform_()` for rand, `.random_(low, high)` for randint"))
