import model
import train


def main(loader):
    clf = model.Classifier().cuda()
    train.fit(clf, loader)
    train.fit_logits(model.LogitNet(), loader)
    train.fit_mixed(model.LogitNet(), loader)
    train.fit_mixed(model.Classifier(), loader)
