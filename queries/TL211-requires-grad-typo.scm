; TL211 requires-grad-typo
; An assignment meant to freeze weights that freezes nothing.

; p.require_grad = False / p.requires_grads = ... on a parameter, tensor or module
; set to False on a value that may need freezing: a fresh `torch.zeros` table
; (it requires no grad and becomes a buffer) needs none.
((assignment
  left: (attribute
    object: (_) @_target
    attribute: (identifier) @_attr)) @finding
  (#any-of? @_attr "require_grad" "requires_grads" "require_grads" "required_grad" "requires_gradient")
  (#not-eq? @_target "self")
  (#parameter? @_target)
  (#freeze-matters? @_target))

((assignment
  left: (attribute
    object: (_) @_target
    attribute: (identifier) @_attr)) @finding
  (#any-of? @_attr "require_grad" "requires_grads" "require_grads" "required_grad" "requires_gradient")
  (#not-eq? @_target "self")
  (#known-tensor? @_target)
  (#freeze-matters? @_target))

((assignment
  left: (attribute
    object: (_) @_target
    attribute: (identifier) @_attr)) @finding
  (#any-of? @_attr "require_grad" "requires_grads" "require_grads" "required_grad" "requires_gradient")
  (#not-eq? @_target "self")
  (#module? @_target)
  (#freeze-matters? @_target))

; model.requires_grad = False: a module has no such flag
((assignment
  left: (attribute
    object: (_) @_target
    attribute: (identifier) @_attr)) @finding
  (#eq? @_attr "requires_grad")
  (#not-eq? @_target "self")
  (#module? @_target))

; The same module assignment with its value, for the fix
; (`model.requires_grad = False` -> `model.requires_grad_(False)`): only a
; plain one-target assignment statement without an annotation, whose value
; is an expression (not another assignment: `a.requires_grad = b = False`).
((expression_statement
  (assignment
    left: (attribute
      object: (_) @_target
      attribute: (identifier) @_attr)
    !type
    right: [(true) (false) (identifier) (attribute) (call) (subscript) (not_operator)
            (boolean_operator) (comparison_operator) (conditional_expression)
            (parenthesized_expression)] @_value) @finding)
  (#eq? @_attr "requires_grad")
  (#not-eq? @_target "self")
  (#module? @_target))
