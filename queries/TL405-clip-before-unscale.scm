; TL405 clip-before-unscale
; Gradient clipping (torch.nn.utils.clip_grad_norm_ / clip_grad_value_, or
; clamp_ on a `.grad`) between a GradScaler-scaled backward and the
; scaler's step, with no `scaler.unscale_(opt)` in between: the threshold
; applies to gradients multiplied by the loss scale.
((call) @finding
  (#call-does? @finding grad-clip)
  (#clip-before-unscale? @finding))

; The same clip as a statement right between `S.scale(loss).backward()` and
; `S.step(opt)` in one block: the fix unscales `opt` with `S` before it
; (nothing between them can have unscaled it already).
((block
  (expression_statement
    (call
      function: (attribute
        object: (call
          function: (attribute
            object: (_) @_scaler
            attribute: (identifier) @_scale))
        attribute: (identifier) @_backward)))
  .
  (expression_statement
    (call) @finding) @_stmt
  .
  (expression_statement
    (call
      function: (attribute
        object: (_) @_stepper
        attribute: (identifier) @_step)
      arguments: (argument_list . (_) @_opt .))))
  (#eq? @_scale "scale")
  (#eq? @_backward "backward")
  (#eq? @_step "step")
  (#eq? @_scaler @_stepper)
  (#call-does? @finding grad-clip)
  (#clip-before-unscale? @finding))
