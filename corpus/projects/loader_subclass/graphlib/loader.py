import torch.utils.data


def collate(items):
    return items


class DataLoader(torch.utils.data.DataLoader):
    def __init__(self, dataset, batch_size=1, shuffle=False, follow_batch=None, **kwargs):
        self.follow_batch = follow_batch
        super().__init__(dataset, batch_size, shuffle, collate_fn=collate, **kwargs)


class StreamLoader(torch.utils.data.DataLoader):
    def __iter__(self):
        for batch in super().__iter__():
            yield batch
