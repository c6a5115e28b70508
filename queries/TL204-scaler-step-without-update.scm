; TL204 scaler-step-without-update
; `scaler.step(opt)` in a step loop whose iteration never calls
; `scaler.update()`. Each pattern sets `where` and `when`, which the message
; quotes: when a loop around the step loop updates (once per epoch, say),
; the inner loop is the problem and the message says so. A loop over
; optimizers (`for opt in optimizers: scaler.step(opt)`) steps each one
; once: the documented multi-optimizer form.

; no update anywhere around the step
((call
  function: (attribute
    object: (_) @_scaler
    attribute: (identifier) @_method)
  arguments: (argument_list
    .
    (_) @_opt)) @finding @_step
  (#eq? @_method "step")
  (#not-loop-element? @_opt)
  (#call-does? @finding scaler-step)
  (#step-iteration-lacks? @finding scaler-update)
  (#not-outer-loop-has? @finding scaler-update)
  (#set! where "iteration of its loop")
  (#set! when "never runs in that loop"))

; an update only in an outer loop
((call
  function: (attribute
    object: (_) @_scaler
    attribute: (identifier) @_method)
  arguments: (argument_list
    .
    (_) @_opt)) @finding @_step
  (#eq? @_method "step")
  (#not-loop-element? @_opt)
  (#call-does? @finding scaler-step)
  (#step-iteration-lacks? @finding scaler-update)
  (#outer-loop-has? @finding scaler-update)
  (#set! where "iteration of the inner loop")
  (#set! when "runs only once per iteration of the outer loop, after the inner loop's steps"))
