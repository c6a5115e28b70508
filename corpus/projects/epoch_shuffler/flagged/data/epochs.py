from data import loader as loaders


def begin(train_loader, epoch, log=None):
    # hands the loader on to the helper of another module
    loaders.shuffle_dataset(train_loader, epoch)
    if log is not None:
        log(f"epoch {epoch}")
