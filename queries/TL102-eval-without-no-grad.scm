; TL102 eval-without-no-grad
; A forward of a module that was put in eval mode, run with gradient
; tracking on, whose result never reaches a backward.
((call
  function: (_) @_model) @finding
  (#module-forward? @finding)
  (#mode-is? @finding eval)
  (#not-under-context? @finding grad-disabled)
  (#not-reaches-backward? @finding))
