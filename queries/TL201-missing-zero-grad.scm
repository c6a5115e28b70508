; TL201 missing-zero-grad
; An optimizer step in a step loop (its iteration runs a backward) whose
; iteration never resets the stepped optimizer's gradients: no reset at all,
; or only resets known to miss it (a GAN resetting D, stepping G).

; optimizer.step()
((call
  function: (attribute
    object: (_) @_opt
    attribute: (identifier) @_method)) @finding @_step
  (#eq? @_method "step")
  (#call-does? @finding optimizer-step)
  (#not-grad-scaler? @_opt)
  (#stepped-params-not-reset? @finding))

; scaler.step(optimizer)
((call
  function: (attribute
    object: (_) @_scaler
    attribute: (identifier) @_method)) @finding @_step
  (#eq? @_method "step")
  (#call-does? @finding optimizer-step)
  (#grad-scaler? @_scaler)
  (#stepped-params-not-reset? @finding))
