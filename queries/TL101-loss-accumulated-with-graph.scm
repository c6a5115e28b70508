; TL101 loss-accumulated-with-graph
; A graph tensor stored into something that outlives the loop iteration,
; unless what is stored is meant for a later backward (REINFORCE, a summed
; multi-task loss) or the loop is a model's own computation (tiles collected
; for the method's result: nothing is kept across training steps).

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
  (#outlives-iteration? @_container)
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
  (#not-model-computation? @_container)
  (#graph-tensor? @_value)
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
  (#not-model-computation? @_container)
  (#graph-tensor? @_value)
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
  (#outlives-iteration? @_container)
  (#not-model-computation? @_container)
  (#not-graph-tensor? @_value)
  (#holds-graph? @_value)
  (#not-reaches-backward? @_container))

; A helper object's method that the training loop calls once per step with
; the loss: `meter.update(loss)` storing `self.sum += val * n`, or
; `logger.log_step(loss)` storing `self.history.append(loss)`. The object
; outlives the step, so each call keeps that step's graph.
((augmented_assignment
  left: (attribute
    object: (identifier) @_self)
  operator: "+="
  right: (_) @_value) @finding
  (#eq? @_self "self")
  (#kept-by-helper? @finding))

((call
  function: (attribute
    object: (attribute
      object: (identifier) @_self)
    attribute: (identifier) @_method)
  arguments: (argument_list
    .
    (comment)*
    .
    (_) @_value
    .
    (comment)*
    .)) @finding
  (#eq? @_self "self")
  (#eq? @_method "append")
  (#kept-by-helper? @finding))
