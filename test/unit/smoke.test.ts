import t from 'tap'
t.equal(1 + 1, 2, 'adds')
