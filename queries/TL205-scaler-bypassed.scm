; TL205 scaler-bypassed
; A GradScaler is half used: the backward is unscaled but the step goes
; through the scaler, or the backward is scaled but the step bypasses it.
; Iterations that mix both kinds (an `if scaler:` branch and its plain
; `else:`) are left alone.

; Each pattern sets `effect`, what the bypass does to the update, which the
; message quotes: it depends on the half bypassed and, for a plain step, on
; whether the optimizer cancels a constant factor (Adam-like) or not.

; loss.backward() ... scaler.step(optimizer)
((call
  function: (attribute
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "backward")
  (#call-does? @finding unscaled-backward)
  (#step-iteration-has? @finding scaler-step)
  (#step-iteration-lacks? @finding plain-step)
  (#set! effect "scaler.step() divides gradients that were never scaled by the loss scale (65536 at the start), so the update shrinks by that factor (an Adam-like optimizer cancels most of it while the gradients stay well above its eps)"))

; scaler.scale(loss).backward() ... optimizer.step(), an optimizer that does
; not cancel a constant factor (SGD) or one whose kind is unknown
((call
  function: (attribute
    object: (_) @_opt
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "step")
  (#call-does? @finding plain-step)
  (#not-adaptive-optimizer? @_opt)
  (#step-iteration-has? @finding scaled-backward)
  (#step-iteration-lacks? @finding unscaled-backward)
  (#step-iteration-lacks? @finding scaler-unscale)
  (#set! effect "the optimizer applies gradients still multiplied by the loss scale (65536 at the start), so the update is that many times too large (unless it is Adam-like), and steps whose gradients overflowed to inf/NaN are applied instead of skipped"))

; the same with an Adam-like optimizer: the scale mostly cancels, the
; inf/NaN skip is what is lost
((call
  function: (attribute
    object: (_) @_opt
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "step")
  (#call-does? @finding plain-step)
  (#adaptive-optimizer? @_opt)
  (#step-iteration-has? @finding scaled-backward)
  (#step-iteration-lacks? @finding unscaled-backward)
  (#step-iteration-lacks? @finding scaler-unscale)
  (#set! effect "this Adam-like optimizer cancels most of the loss scale in its update, but steps whose scaled gradients overflowed to inf/NaN are applied instead of skipped, which turns the parameters NaN"))
