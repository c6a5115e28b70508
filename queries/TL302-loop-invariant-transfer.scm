; TL302 loop-invariant-transfer
; A `.to(device)` / `.cuda()` on every step of something the loop never
; changes: a module, a criterion, or a tensor bound before the loop. Not a
; move that is undone in the same pass (offloading, a saved device restored)
; nor one whose destination changes per iteration.

; a module or a criterion: model.to(device), criterion.cuda()
((call
  function: (attribute
    object: [(identifier) (attribute)] @_moved
    attribute: (identifier) @_method)) @finding
  (#any-of? @_method "cuda" "to")
  (#moves-to-device? @finding)
  (#per-step? @finding any)
  (#loop-invariant? @_moved)
  (#not-transfer-varies? @finding)
  (#module? @_moved))

; a tensor bound before the loop: weights.to(device)
((call
  function: (attribute
    object: [(identifier) (attribute)] @_moved
    attribute: (identifier) @_method)) @finding
  (#any-of? @_method "cuda" "to")
  (#moves-to-device? @finding)
  (#per-step? @finding any)
  (#loop-invariant? @_moved)
  (#not-transfer-varies? @finding)
  (#not-module? @_moved)
  (#known-tensor? @_moved)
  (#not-transfer-noop? @finding))
