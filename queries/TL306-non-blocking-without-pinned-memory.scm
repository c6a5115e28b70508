; TL306 non-blocking-without-pinned-memory
; `.to(device, non_blocking=True)` / `.cuda(non_blocking=True)` on a batch
; of a DataLoader built in the file without pin_memory: the copy comes
; from pageable memory and cannot overlap. `.pin_memory().to(...)` is not
; a batch taken as is, so it is not matched.
((call
  function: (attribute
    object: (_) @_batch
    attribute: (identifier) @_method)
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @_key
      value: (true)))) @finding
  (#any-of? @_method "cuda" "to")
  (#eq? @_key "non_blocking")
  (#moves-to-device? @finding)
  (#from-loader? @_batch)
  (#not-loader-option? @_batch pin_memory))
