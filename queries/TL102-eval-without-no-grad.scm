; TL102 eval-without-no-grad
; A forward of a module that was put in eval mode (on every path, or under
; the constants some call site of its function passes), run with gradient
; tracking on, whose result never reaches a backward (in code some run
; reaches: not a branch a constant argument decides against). Each pattern sets
; `what`, which the message quotes: at a helper's call it is the model the
; helper runs that is in eval mode, not the helper.
((call
  function: (_) @_model) @finding
  (#module-forward? @finding)
  (#mode-is? @finding eval-on-a-path)
  (#reached? @finding)
  (#records-graph? @finding)
  (#not-under-context? @finding grad-disabled)
  (#not-reaches-backward? @finding)
  (#set! what "runs in eval mode with gradient tracking on, so it records"))

; A forward in an evaluation pass (a loop, or a function, that runs the
; model over data in a program that trains, and whose results reach no
; backward nor optimizer step), whatever the model's mode, run with
; gradient tracking on. The model in eval mode is the pattern above.
; `evaluation-pass` comes before `mode-is`: in a program that does not
; train it answers from the index, where `mode-is` interprets the model.
((call
  function: (_) @_model) @finding
  (#module-forward? @finding)
  (#not-loss-call? @finding)
  (#evaluation-pass? @finding)
  (#not-mode-is? @finding eval-on-a-path)
  (#reached? @finding)
  (#records-graph? @finding)
  (#not-under-context? @finding grad-disabled)
  (#set! what "runs in an evaluation pass with gradient tracking on, so it records"))

; A local function that the training step also uses (or that callers run in
; different modes), called on the evaluation path: the finding goes to this
; call, where the fix (a no_grad block around it) belongs.
; Also a method of the model's class (in the file or in another module) that
; runs the model's own forward, called on a model in eval mode
; (`model.incremental_forward(x)`): its mode summary says so
; (facts/effects.c).
((call
  function: (_) @_model) @finding
  (#not-module-forward? @finding)
  (#evaluates-with-grad? @finding)
  (#set! what "runs a model forward with gradient tracking on while an earlier `.eval()` (before this call, or in the helper) has the model in eval mode, so the model records"))

