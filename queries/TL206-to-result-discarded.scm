; TL206 to-result-discarded
; `x.to(device)` (or .cuda(), .cpu(), .half(), .float(), ...) as a whole
; statement on a value known to be a tensor: tensors are not moved in place,
; the moved copy is thrown away. Modules (moved in place) never match, nor
; temporaries (`torch.ones(1).cuda()` run for its side effect, CUDA init),
; nor a statement at the top level of a notebook (Jupyter displays the value
; that ends a cell: the `displayed` fact, as TL219 reads it).
((expression_statement
  (call
    function: (attribute
      object: [
        (identifier)
        (attribute)
        (subscript)
      ] @_tensor
      attribute: (identifier) @_method)) @finding)
  (#any-of? @_method "to" "cuda" "cpu" "half" "float" "double" "bfloat16" "long" "int")
  (#known-tensor? @_tensor)
  (#not-displayed? @finding))
