from tqdm import tqdm


def maybe_bar(items, verbose):
    """A progress bar over `items` when asked for one, else `items` as given."""
    if verbose:
        return tqdm(items)
    return items


def counted(items):
    return enumerate(items)
