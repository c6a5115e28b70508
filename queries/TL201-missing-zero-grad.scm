; TL201 missing-zero-grad
; An optimizer step in a step loop (its iteration runs a backward) whose
; iteration never resets gradients.

; optimizer.step()
((call
  function: (attribute
    object: (_) @_opt
    attribute: (identifier) @_method)) @finding @_step
  (#eq? @_method "step")
  (#call-does? @finding optimizer-step)
  (#not-grad-scaler? @_opt)
  (#step-iteration-lacks? @finding grad-reset))

; scaler.step(optimizer)
((call
  function: (attribute
    object: (_) @_scaler
    attribute: (identifier) @_method)) @finding @_step
  (#eq? @_method "step")
  (#grad-scaler? @_scaler)
  (#step-iteration-lacks? @finding grad-reset))
