package gen
class Generated
