; TL303 host-round-trip-in-loop
; In one step-loop iteration, data a device tensor sent to the host
; (.cpu(), .tolist(), then .numpy()) comes back to the device. Reported at
; the call that sends it back.

; torch.from_numpy(arr).cuda(), torch.tensor(lst).to(device)
((call
  function: (attribute
    object: (_) @_data
    attribute: (identifier) @_method)) @finding
  (#any-of? @_method "cuda" "to")
  (#moves-to-device? @finding)
  (#host-derived? @_data)
  (#per-step? @finding any))

; torch.tensor(lst, device=device), torch.as_tensor(arr, device="cuda")
((call
  arguments: (argument_list
    .
    (comment)*
    .
    (_) @_data
    (keyword_argument
      name: (identifier) @_key
      value: (_) @_device))) @finding
  (#eq? @_key "device")
  (#api? @finding tensor-from-data)
  (#device? @_device)
  (#host-derived? @_data)
  (#per-step? @finding any))
