; TL202 zero-grad-before-step
; A gradient reset between the backward and the optimizer step that should
; consume its gradients: `loss.backward(); opt.zero_grad(); opt.step()`.
((call
  function: (attribute
    attribute: (identifier) @_method)) @finding @_reset
  (#eq? @_method "zero_grad")
  (#reset-before-step? @finding))
