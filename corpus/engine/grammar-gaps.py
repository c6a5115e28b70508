"""Valid Python that the pinned tree-sitter-python grammar (0.25.0) cannot
parse. torchlint reports TL000 there although CPython accepts the code;
the findings are known false positives kept visible until the grammar
handles them.
"""


def split_endpoint(endpoint):
    if endpoint[0] == "[":
        # A starred element on both sides of an unparenthesised assignment.
        # todo-ok: TL000
        host, *rest = endpoint, *[]
    else:
        host, *rest = endpoint.rsplit(":", 1)
    return host, rest
