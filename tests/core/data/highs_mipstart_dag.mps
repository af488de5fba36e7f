NAME        
ROWS
 N  Obj     
 E  r0      
 E  r1      
 E  r2      
 E  r3      
 E  r4      
 E  r5      
 E  r6      
 E  r7      
 E  r8      
 E  r9      
 E  r10     
 E  r11     
 L  r12     
 L  r13     
 L  r14     
 L  r15     
 L  r16     
 L  r17     
 L  r18     
 L  r19     
 L  r20     
 L  r21     
 L  r22     
 L  r23     
 L  r24     
 L  r25     
 L  r26     
 L  r27     
 L  r28     
 L  r29     
 L  r30     
 L  r31     
 L  r32     
 L  r33     
 L  r34     
 L  r35     
 L  r36     
 L  r37     
 L  r38     
 L  r39     
 L  r40     
 L  r41     
 L  r42     
 L  r43     
 L  r44     
 L  r45     
 L  r46     
 L  r47     
 L  r48     
 L  r49     
 L  r50     
 L  r51     
 L  r52     
 L  r53     
 L  r54     
 L  r55     
 L  r56     
 L  r57     
 L  r58     
 L  r59     
 L  r60     
 L  r61     
COLUMNS
    MARK0000  'MARKER'                 'INTORG'
    c0        r0        1
    c0        r3        1
    c0        r57       1.195
    c1        r0        1
    c1        r4        1
    c1        r58       4.997
    c1        r60       -4.997
    c2        r0        1
    c2        r5        1
    c2        r59       4.997
    c2        r60       4.997
    c3        r1        1
    c3        r6        1
    c3        r57       3.609
    c4        r1        1
    c4        r7        1
    c4        r58       1.938
    c4        r60       -1.938
    c5        r1        1
    c5        r8        1
    c5        r59       1.938
    c5        r60       1.938
    c6        r2        1
    c6        r9        1
    c6        r57       2.74
    c7        r2        1
    c7        r10       1
    c7        r58       4.897
    c7        r60       -4.897
    c8        r2        1
    c8        r11       1
    c8        r59       4.897
    c8        r60       4.897
    c9        r3        -1
    c9        r12       1
    c9        r21       -1
    c9        r42       1.195
    c10       r4        -1
    c10       r13       1
    c10       r22       -1
    c10       r43       4.997
    c11       r5        -1
    c11       r14       1
    c11       r23       -1
    c11       r44       4.997
    c12       r6        -1
    c12       r15       1
    c12       r24       -1
    c12       r45       3.609
    c13       r7        -1
    c13       r16       1
    c13       r25       -1
    c13       r46       1.938
    c14       r8        -1
    c14       r17       1
    c14       r26       -1
    c14       r47       1.938
    c15       r9        -1
    c15       r18       1
    c15       r27       -1
    c15       r48       2.74
    c16       r10       -1
    c16       r19       1
    c16       r28       -1
    c16       r49       4.897
    c17       r11       -1
    c17       r20       1
    c17       r29       -1
    c17       r50       4.897
    c18       r12       -1
    c18       r21       1
    c18       r33       18.112000017112
    c19       r13       -1
    c19       r22       1
    c19       r34       18.112000017112
    c20       r14       -1
    c20       r23       1
    c20       r35       18.112000017112
    c21       r15       -2
    c21       r24       1
    c21       r36       18.112000017112
    c22       r16       -2
    c22       r25       1
    c22       r37       18.112000017112
    c23       r17       -2
    c23       r26       1
    c23       r38       18.112000017112
    c24       r18       -1
    c24       r27       1
    c24       r39       18.112000017112
    c25       r19       -1
    c25       r28       1
    c25       r40       18.112000017112
    c26       r20       -1
    c26       r29       1
    c26       r41       18.112000017112
    MARK0001  'MARKER'                 'INTEND'
    c27       r30       1
    c27       r31       1
    c27       r42       -1
    c27       r43       -1
    c27       r44       -1
    c27       r51       -1
    c27       r54       1
    c28       r30       -1
    c28       r36       1
    c28       r37       1
    c28       r38       1
    c28       r52       1
    c29       r31       -1
    c29       r32       -1
    c29       r39       1
    c29       r40       1
    c29       r41       1
    c29       r53       1
    c30       r32       1
    c30       r45       -1
    c30       r46       -1
    c30       r47       -1
    c30       r52       -1
    c30       r55       1
    c31       r33       1
    c31       r34       1
    c31       r35       1
    c31       r51       1
    c32       r33       -1
    c32       r42       1
    c33       r34       -1
    c33       r43       1
    c34       r35       -1
    c34       r44       1
    c35       r36       -1
    c35       r45       1
    c36       r37       -1
    c36       r46       1
    c37       r38       -1
    c37       r47       1
    c38       r39       -1
    c38       r48       1
    c39       r40       -1
    c39       r49       1
    c40       r41       -1
    c40       r50       1
    c41       r48       -1
    c41       r49       -1
    c41       r50       -1
    c41       r53       -1
    c41       r56       1
    c42       Obj       1
    c42       r54       -1
    c42       r55       -1
    c42       r56       -1
    c42       r57       -1
    c42       r58       -1
    c42       r59       -1
RHS
    RHS_V     r0        1
    RHS_V     r1        2
    RHS_V     r2        1
    RHS_V     r33       18.112000017112
    RHS_V     r34       18.112000017112
    RHS_V     r35       18.112000017112
    RHS_V     r36       18.112000017112
    RHS_V     r37       18.112000017112
    RHS_V     r38       18.112000017112
    RHS_V     r39       18.112000017112
    RHS_V     r40       18.112000017112
    RHS_V     r41       18.112000017112
    RHS_V     r51       -1.195
    RHS_V     r52       -1.938
    RHS_V     r53       -2.74
BOUNDS
 BV BOUND     c0      
 BV BOUND     c1      
 BV BOUND     c2      
 UI BOUND     c3        2
 UI BOUND     c4        2
 UI BOUND     c5        2
 BV BOUND     c6      
 BV BOUND     c7      
 BV BOUND     c8      
 BV BOUND     c9      
 BV BOUND     c10     
 BV BOUND     c11     
 UI BOUND     c12       2
 UI BOUND     c13       2
 UI BOUND     c14       2
 BV BOUND     c15     
 BV BOUND     c16     
 BV BOUND     c17     
 BV BOUND     c18     
 BV BOUND     c19     
 BV BOUND     c20     
 BV BOUND     c21     
 BV BOUND     c22     
 BV BOUND     c23     
 BV BOUND     c24     
 BV BOUND     c25     
 BV BOUND     c26     
 UP BOUND     c27       18.112000017112
 UP BOUND     c28       18.112000017112
 UP BOUND     c29       18.112000017112
 UP BOUND     c30       18.112000017112
 UP BOUND     c31       18.112000017112
 UP BOUND     c32       18.112000017112
 UP BOUND     c33       18.112000017112
 UP BOUND     c34       18.112000017112
 UP BOUND     c35       18.112000017112
 UP BOUND     c36       18.112000017112
 UP BOUND     c37       18.112000017112
 UP BOUND     c38       18.112000017112
 UP BOUND     c39       18.112000017112
 UP BOUND     c40       18.112000017112
 UP BOUND     c41       18.112000017112
 UP BOUND     c42       18.112000017112
ENDATA
