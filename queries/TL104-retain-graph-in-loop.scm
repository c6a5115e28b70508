; TL104 retain-graph-in-loop
; `.backward(retain_graph=True)` in a step loop when nothing backpropagates
; the same graph again: the graph's saved tensors stay alive for nothing.
; `create_graph=True` retains the graph anyway; such calls are left alone.
; Each pattern sets `fix`, which the message quotes: it names the recurrent
; state only when one carries the graph into the next iteration.
; no recurrent state
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
  (#not-graph-reused? @finding)
  (#not-graph-carried? @finding)
  (#set! fix "drop `retain_graph=True`"))

; a recurrent state carried without detaching
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
  (#not-graph-reused? @finding)
  (#graph-carried? @finding)
  (#set! fix "drop `retain_graph=True` and detach the recurrent state that carries this graph into the next iteration, as TL103 says (`h = h.detach()`)"))
