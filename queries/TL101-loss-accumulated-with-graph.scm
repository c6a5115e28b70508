; TL101 loss-accumulated-with-graph
; A graph tensor stored into something that outlives the iterations of a
; training step loop (one whose iteration runs a backward or an optimizer
; step), unless what is stored is meant for a later backward (REINFORCE, a
; summed multi-task loss) or the loop is a model's own computation (tiles
; collected for the method's result). The same store in any other loop is
; TL106.

; losses.append(loss), history["loss"].append(loss)
((call
  function: (attribute
    object: (_) @_container
    attribute: (identifier) @_method)
  arguments: (argument_list
    .
    (comment)*
    .
    (_) @_value
    .
    (comment)*
    .)) @finding
  (#eq? @_method "append")
  (#in-loop? @finding)
  (#not-detaching-container? @_container)
  (#kept-across-training-step? @_container)
  (#not-model-computation? @_container)
  (#graph-tensor? @_value)
  (#not-reaches-backward? @_container))

; total += loss
((augmented_assignment
  left: (_) @_container
  operator: "+="
  right: (_) @_value) @finding
  (#in-loop? @finding)
  (#kept-across-training-step? @_container)
  (#not-model-computation? @_container)
  (#graph-tensor? @_value)
  (#store-keeps-graph? @_container)
  (#not-reaches-backward? @_container))

; total = total + loss, also split over lines in parentheses
((assignment
  left: (identifier) @_container
  right: [
    (binary_operator
      left: (identifier) @_same
      operator: "+"
      right: (_) @_value)
    (parenthesized_expression
      (binary_operator
        left: (identifier) @_same
        operator: "+"
        right: (_) @_value))
  ]) @finding
  (#eq? @_container @_same)
  (#in-loop? @finding)
  (#kept-across-training-step? @_container)
  (#not-model-computation? @_container)
  (#graph-tensor? @_value)
  (#not-reaches-backward? @_container))

; metrics[key] = loss, with a key that changes (a literal key overwrites
; one slot, like a plain name)
((assignment
  left: (subscript
    value: (_) @_container
    subscript: (_) @_key)
  right: (_) @_value) @finding
  (#not-match? @_key "^([\"']|[0-9-])")
  (#in-loop? @finding)
  (#kept-across-training-step? @_container)
  (#not-model-computation? @_container)
  (#graph-tensor? @_value)
  (#store-keeps-graph? @_container)
  (#not-reaches-backward? @_container))

; outputs.append(out) of a container holding a graph tensor: `{"loss":
; loss}`, `(loss, acc)`, or a step's output whose element was just
; backpropagated (`out["loss"].backward()`)
((call
  function: (attribute
    object: (_) @_container
    attribute: (identifier) @_method)
  arguments: (argument_list
    .
    (comment)*
    .
    (_) @_value
    .
    (comment)*
    .)) @finding
  (#eq? @_method "append")
  (#in-loop? @finding)
  (#not-detaching-container? @_container)
  (#kept-across-training-step? @_container)
  (#not-model-computation? @_container)
  (#not-graph-tensor? @_value)
  (#holds-graph? @_value)
  (#not-reaches-backward? @_container))

; A helper object's method that the training step loop calls once per step
; with a graph tensor and that adds it to `self` state: `meter.update(loss)`
; storing `self.sum += val * n`, `logger.log_step(loss)` storing
; `self.history.append(loss)`, the class here or in another module. Reported
; at the call, where the fix belongs.
((call
  function: (attribute)
  arguments: (argument_list
    [
      (_) @_value
      (keyword_argument
        value: (_) @_value)
    ])) @finding
  (#in-loop? @finding)
  (#kept-by-callee? @_value)
  (#graph-tensor? @_value))
