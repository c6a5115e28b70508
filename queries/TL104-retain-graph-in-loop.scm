; TL104 retain-graph-in-loop
; `.backward(retain_graph=True)` in a step loop when nothing backpropagates
; the same graph again: the graph's saved tensors stay alive for nothing.
; `create_graph=True` retains the graph anyway; such calls are left alone.
((call
  function: (attribute
    attribute: (identifier) @_method)
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @_kw
      value: (true))) @_args) @finding @_backward
  (#eq? @_method "backward")
  (#eq? @_kw "retain_graph")
  (#not-match? @_args "create_graph *= *True")
  (#call-does? @finding backward)
  (#step-iteration-has? @finding backward)
  (#not-graph-reused? @finding))
