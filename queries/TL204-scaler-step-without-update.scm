; TL204 scaler-step-without-update
; `scaler.step(opt)` in a step loop whose iteration never calls
; `scaler.update()`.
((call
  function: (attribute
    object: (_) @_scaler
    attribute: (identifier) @_method)) @finding @_step
  (#eq? @_method "step")
  (#call-does? @finding scaler-step)
  (#step-iteration-lacks? @finding scaler-update))
