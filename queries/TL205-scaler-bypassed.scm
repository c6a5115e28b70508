; TL205 scaler-bypassed
; A GradScaler is half used: the backward is unscaled but the step goes
; through the scaler, or the backward is scaled but the step bypasses it.
; Iterations that mix both kinds (an `if scaler:` branch and its plain
; `else:`) are left alone.

; loss.backward() ... scaler.step(optimizer)
((call
  function: (attribute
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "backward")
  (#call-does? @finding unscaled-backward)
  (#step-iteration-has? @finding scaler-step)
  (#step-iteration-lacks? @finding plain-step))

; scaler.scale(loss).backward() ... optimizer.step()
((call
  function: (attribute
    object: (_) @_opt
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "step")
  (#call-does? @finding plain-step)
  (#step-iteration-has? @finding scaled-backward)
  (#step-iteration-lacks? @finding unscaled-backward)
  (#step-iteration-lacks? @finding scaler-unscale))
