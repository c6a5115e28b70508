; TL213 ddp-module-bypassed
; A forward through the module inside a DistributedDataParallel wrapper
; (`ddp.module(x)`, `ddp.module.forward(x)`, a name bound to `ddp.module`)
; whose result reaches a backward: DDP's forward never runs, so the
; gradients of that backward are not averaged across processes. Not in
; evaluation: under no_grad, or with the module last put in eval mode; not
; where nothing steps an optimizer on those gradients (a test comparing
; gradients, a probe): replicas that are never updated cannot drift apart.

; ddp.module(x), inner(x) with inner = ddp.module
((call
  function: (_) @_inner) @finding
  (#updates-weights? @finding)
  (#wrapped-module? @_inner ddp)
  (#reaches-backward? @finding)
  (#not-under-context? @finding grad-disabled)
  (#not-mode-is? @finding eval))

; ddp.module.forward(x)
((call
  function: (attribute
    object: (_) @_inner
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "forward")
  (#updates-weights? @finding)
  (#wrapped-module? @_inner ddp)
  (#reaches-backward? @finding)
  (#not-under-context? @finding grad-disabled)
  (#not-mode-is? @finding eval))
