; TL309 anomaly-detection-enabled
; Anomaly detection switched on for a training step loop and not under a
; condition: `torch.autograd.set_detect_anomaly(True)` as a statement before
; a training step loop of its function (at module level: of the file), or a
; `with torch.autograd.detect_anomaly():` (or `set_detect_anomaly(True)`)
; block whose body runs one. A condition (a debug flag), an argument that is
; not the literal True, a block around a single step and test functions
; never match.
((expression_statement
  (call
    arguments: (argument_list
      .
      [
        (true)
        (keyword_argument value: (true))
      ])) @finding) @_stmt
  (#api? @finding anomaly-mode)
  (#encloses-step-loop? @_stmt training)
  (#not-under-condition? @_stmt)
  (#not-in-test-code? @_stmt))
((with_statement
  (with_clause
    (with_item
      value: (call
        arguments: (argument_list) @_args) @finding))) @_stmt
  (#api? @finding anomaly-mode)
  (#match? @_args "^[(][ \t\n]*([)]|True|mode *= *True|check_nan)")
  (#encloses-step-loop? @_stmt training)
  (#not-under-condition? @_stmt)
  (#not-in-test-code? @_stmt))
