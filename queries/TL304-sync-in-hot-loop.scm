; TL304 sync-in-hot-loop (opt-in)
; A host sync on a device tensor on every step of a training loop, outside
; every-N-steps guards.

; loss.item(), logits.cpu(), preds.tolist()
((call
  function: (attribute
    object: (_) @_tensor
    attribute: (identifier) @_method)) @finding
  (#any-of? @_method "item" "cpu" "tolist")
  (#per-step? @finding training)
  (#device-tensor? @_tensor))

; float(loss)
((call
  function: (identifier) @_method
  arguments: (argument_list
    .
    (comment)*
    .
    (_) @_tensor
    .
    (comment)*
    .)) @finding
  (#eq? @_method "float")
  (#per-step? @finding training)
  (#device-tensor? @_tensor))

; print(loss), print("loss", loss)
((call
  function: (identifier) @_method
  arguments: (argument_list
    (_) @_tensor)) @finding
  (#eq? @_method "print")
  (#per-step? @finding training)
  (#device-tensor? @_tensor))

; print(f"loss {loss}")
((call
  function: (identifier) @_method
  arguments: (argument_list
    (string
      (interpolation
        expression: (_) @_tensor)))) @finding
  (#eq? @_method "print")
  (#per-step? @finding training)
  (#device-tensor? @_tensor))
