; TL106 tensor-kept-with-graph
; The stores of TL101 in a loop that is not a training step loop, or whose
; container is made anew in the training step loop around it: a script's
; evaluation, sampling or decoding loop that collects outputs with gradients
; on. Not a model's own computation (pieces of the method's result), not
; values meant for a later backward, not values computed under no_grad.

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
  (#outlives-iteration? @_container)
  (#not-kept-across-training-step? @_container)
  (#not-in-step-loop? @finding training)
  (#not-model-computation? @_container)
  (#graph-tensor? @_value)
  (#not-reaches-backward? @_container))

; total += loss
((augmented_assignment
  left: (_) @_container
  operator: "+="
  right: (_) @_value) @finding
  (#in-loop? @finding)
  (#outlives-iteration? @_container)
  (#not-kept-across-training-step? @_container)
  (#not-in-step-loop? @finding training)
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
  (#outlives-iteration? @_container)
  (#not-kept-across-training-step? @_container)
  (#not-in-step-loop? @finding training)
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
  (#outlives-iteration? @_container)
  (#not-kept-across-training-step? @_container)
  (#not-in-step-loop? @finding training)
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
  (#outlives-iteration? @_container)
  (#not-kept-across-training-step? @_container)
  (#not-in-step-loop? @finding training)
  (#not-model-computation? @_container)
  (#not-graph-tensor? @_value)
  (#holds-graph? @_value)
  (#not-reaches-backward? @_container))

