import os


class ProjectTestCase:
    def setup_method(self):
        self.fixtures = os.path.join(os.path.dirname(__file__), "fixtures")
