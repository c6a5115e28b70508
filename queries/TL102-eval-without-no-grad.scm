; TL102 eval-without-no-grad
; A forward of a module that was put in eval mode, run with gradient
; tracking on, whose result never reaches a backward.
((call
  function: (_) @_model) @finding
  (#module-forward? @finding)
  (#mode-is? @finding eval)
  (#not-under-context? @finding grad-disabled)
  (#not-reaches-backward? @finding))

; A local function that the training step also uses (or that callers run in
; different modes), called on the evaluation path: the finding goes to this
; call, where the fix (a no_grad block around it) belongs.
((call
  function: (_) @_model) @finding
  (#not-module-forward? @finding)
  (#evaluates-with-grad? @finding))
